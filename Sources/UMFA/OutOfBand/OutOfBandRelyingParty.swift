import Crypto
import Foundation
import Synchronization
import UMFAContract
import UMFAEncoding
import UMFAWebAuthnModel
import UMFAWebAuthnTypes

/// The app link of an out-of-band transaction (docs/contract.md §7), as a QR code or a link carries it:
/// `<server>/open?dispatchTokenResponse=<base64url JSON>`.
public struct UMFAAppLink: Sendable, Equatable {
    /// The UMFA server.
    public let server: URL
    /// The application.
    public let applicationId: String
    /// `registration` or `authentication`.
    public let operation: String
    /// The single-use dispatch token (`umfa_dt_…`).
    public let token: String
    /// The link itself: `<server>/open?dispatchTokenResponse=<payload>`.
    public let uri: String

    /// Reads an app link (or, as the enroll answer's file holds it, an enroll response's
    /// `enrollment.appLinkUri`).
    public init(uri: String) throws(ZSMError) {
        guard let components = URLComponents(string: uri.trimmingCharacters(in: .whitespacesAndNewlines)),
            let value = components.queryItems?.first(where: { $0.name == "dispatchTokenResponse" })?.value
        else { throw ZSMError(.invalidConfiguration, "the app link is not a UMFA app link") }
        try self.init(dispatchTokenResponse: value)
    }

    /// Reads the `dispatchTokenResponse` value of an app link, as a pending approval carries it.
    public init(dispatchTokenResponse value: String) throws(ZSMError) {
        let invalid = ZSMError(.invalidConfiguration, "the app link is not a UMFA app link")
        guard let bytes = Base64URL.decode(value),
            let payload = try? JSONDecoder().decode(AppLinkPayload.self, from: Data(bytes)),
            payload.version == 1, let server = URL(string: payload.server), server.host != nil,
            ["registration", "authentication"].contains(payload.operation), payload.token.hasPrefix("umfa_dt_")
        else { throw invalid }
        self.server = server
        applicationId = payload.applicationID
        operation = payload.operation
        token = payload.token
        var base = payload.server
        while base.hasSuffix("/") { base.removeLast() }
        uri = base + "/open?dispatchTokenResponse=" + value
    }
}

/// A ``RelyingParty`` for one out-of-band transaction (docs/contract.md §7): the ceremony comes from
/// redeeming the app link's dispatch token and ends at `dispatch/complete`. Use it with
/// ``UMFAClient`` as any relying party: ``UMFAClient/enroll(userId:)`` registers the passkey the
/// backend asked for, ``UMFAClient/authenticate(userId:)`` approves (or denies) a request.
///
/// An approval's challenge must be the hash of the transaction, the message and the nonce the
/// server sent (`ApprovalChallenge`): options for anything else are refused before the user
/// is asked, so a signature always covers the message the app shows. The passkey then signs the
/// decision's challenge (`ApprovalChallenge.decision` in UMFAContract), so a decision
/// or number changed on its way to the server fails the transaction instead of approving it.
public final class OutOfBandRelyingParty: RelyingParty {
    /// What the user decided about an approval.
    public enum Decision: String, Sendable {
        case approve, deny
    }

    /// The app link.
    public let link: UMFAAppLink
    let http: UMFAHTTPRelyingParty
    private let confirmation: TransactionConfirmationHandler?
    /// The decision and matching number: given, or the confirmation handler's.
    private let answer: Mutex<(decision: Decision, matchingNumber: String?)>
    private let redeemed = Mutex<DispatchRedeemResponse?>(nil)

    var decision: Decision { answer.withLock { $0.decision } }
    var matchingNumber: String? { answer.withLock { $0.matchingNumber } }
    /// The number `dispatch/complete` sends (and the passkey signs): only with an approval.
    var sentNumber: String? { decision == .approve ? matchingNumber : nil }

    /// Creates the relying party of `link`; `config` gives timeouts and headers (its host and
    /// application are the link's).
    public convenience init(
        link: UMFAAppLink, config: ZSMConfig, decision: Decision = .approve, matchingNumber: String? = nil
    ) {
        self.init(link: link, config: config, decision: decision, matchingNumber: matchingNumber, confirmation: nil)
    }

    /// Creates the relying party of an approval's `link` that asks `confirmation` what the user
    /// decides, once the message is checked against the challenge and before anything is signed.
    public convenience init(
        link: UMFAAppLink, config: ZSMConfig, confirmation: @escaping TransactionConfirmationHandler
    ) {
        self.init(link: link, config: config, decision: .approve, matchingNumber: nil, confirmation: confirmation)
    }

    private init(
        link: UMFAAppLink, config: ZSMConfig, decision: Decision, matchingNumber: String?,
        confirmation: TransactionConfirmationHandler?
    ) {
        var linked = config
        linked.hostURL = link.server
        linked.applicationId = link.applicationId
        self.link = link
        http = UMFAHTTPRelyingParty(config: linked)
        self.confirmation = confirmation
        answer = Mutex((decision, matchingNumber))
    }

    /// Redeems the dispatch token (once; later calls answer the same): the operation, the user,
    /// and for approvals the message to show and whether a number must be typed.
    public func redeem() async throws(ZSMError) -> DispatchRedeemResponse {
        if let done = redeemed.withLock({ $0 }) { return done }
        let answer: DispatchRedeemResponse = try await http.post(.dispatchRedeem, retry: false) { _ in
            DispatchRedeemRequest(token: link.token)
        }
        redeemed.withLock { $0 = answer }
        return answer
    }

    /// Redeems the link and returns the creation options of the enrollment.
    public func beginRegistration(userId: String, displayName: String?, enrollmentToken: String?) async throws(ZSMError)
        -> CeremonyOptions<CreationOptionsJSON>
    {
        let answer = try await redeemed(operation: "registration", userId: userId)
        return CeremonyOptions(options: try Self.decode(answer.publicKey), traceId: answer.traceID)
    }

    /// Completes the enrollment.
    public func finishRegistration(userId: String, credential: RegistrationResponseJSON, deviceName: String?)
        async throws(ZSMError) -> CeremonyOutcome
    {
        try await complete(credential, deviceName: deviceName)
    }

    /// Redeems the link and returns an approval's request options, checked against its message.
    public func beginAuthentication(userId: String?) async throws(ZSMError) -> CeremonyOptions<RequestOptionsJSON> {
        let answer = try await redeemed(operation: "authentication", userId: userId)
        var options: RequestOptionsJSON = try Self.decode(answer.publicKey)
        guard let nonce = answer.approvalNonce.flatMap(Base64URL.decode),
            options.challenge.bytes
                == ApprovalChallenge.bytes(
                    transactionID: answer.transactionID, message: answer.message ?? "", nonce: nonce)
        else {
            throw ZSMError(
                .verificationFailed, "the approval's challenge does not match its message; nothing was signed")
        }
        // The details an app may draw its own way must be the ones the signed message ends with.
        if let details = answer.authorizationDetails {
            let message = Array((answer.message ?? "").utf8)
            guard let text = AuthorizationDetailsText.canonical(details).map({ Array($0.utf8) }),
                message == text || message.suffix(text.count + 2).elementsEqual(Array("\n\n".utf8) + text)
            else {
                throw ZSMError(
                    .verificationFailed,
                    "the approval's authorization details are not the ones its message shows; nothing was signed")
            }
        }
        if let confirmation {
            let asked = TransactionConfirmation(
                transactionId: answer.transactionID, message: answer.message ?? "",
                authorizationDetails: answer.authorizationDetails, userId: answer.userID,
                needsMatchingNumber: answer.matching == true)
            switch await confirmation(asked) {
            case .approve(let number): self.answer.withLock { $0 = (.approve, number) }
            case .deny: self.answer.withLock { $0 = (.deny, nil) }
            case .cancel: throw ZSMError(.cancelled, "the user neither approved nor denied; nothing was signed")
            }
        }
        if answer.matching == true, decision == .approve, matchingNumber == nil {
            throw ZSMError(.invalidConfiguration, "this approval needs the number the other screen shows")
        }
        // The passkey signs the decision and the number as they will be sent.
        options.challenge = Base64URLBytes(
            ApprovalChallenge.decision(
                options.challenge.bytes, decision: decision.rawValue, matchingNumber: sentNumber))
        return CeremonyOptions(options: options, traceId: answer.traceID)
    }

    /// Completes the approval with the decision and the matching number.
    public func finishAuthentication(userId: String?, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        try await complete(credential, deviceName: nil)
    }

    /// Refused: an app link cannot unenroll.
    public func unenroll(userId: String, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        throw ZSMError(.invalidConfiguration, "an app link cannot unenroll; use the application's relying party")
    }

    // MARK: Steps

    private func redeemed(operation: String, userId: String?) async throws(ZSMError) -> DispatchRedeemResponse {
        let answer = try await redeem()
        guard answer.operation == operation else {
            throw ZSMError(.invalidConfiguration, "the app link is for \(answer.operation), not \(operation)")
        }
        if let userId, let named = answer.userID, named != userId {
            throw ZSMError(.invalidConfiguration, "the app link is for another user")
        }
        return answer
    }

    private func complete(_ credential: some Encodable, deviceName: String?) async throws(ZSMError) -> CeremonyOutcome {
        let answer = try await redeem()
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(credential))
        } catch {
            throw ZSMError(.invalidConfiguration, "the credential could not be encoded")
        }
        // An enrollment registers a device key with the passkey, for device proofs later.
        let isEnrollment = answer.operation == "registration"
        let deviceKey = isEnrollment ? P256.Signing.PrivateKey() : nil
        let keys = isEnrollment ? DeviceSigningKeys(config: http.config) : nil
        let device = deviceKey.map {
            DispatchDevice(
                name: deviceName ?? http.config.deviceName ?? "UMFA device", pushToken: http.config.pushToken,
                key: DeviceSigningKeys.publicJWK($0))
        }
        let done: DispatchCompleteResponse = try await http.post(.dispatchComplete, retry: false) { _ in
            DispatchCompleteRequest(
                transactionID: answer.transactionID, credential: json,
                decision: answer.operation == "authentication" ? decision.rawValue : nil,
                matchingNumber: answer.operation == "authentication" ? sentNumber : nil, device: device)
        }
        guard done.status == "succeeded" || (decision == .deny && done.status == "denied") else {
            throw ZSMError(.verificationFailed, "the transaction ended as \(done.status)", traceId: done.traceID)
        }
        if let deviceKey, let keys {
            try keys.save(
                deviceKey, applicationId: link.applicationId, userId: done.userID, credentialId: done.credentialID)
        }
        return CeremonyOutcome(userId: done.userID, credentialId: done.credentialID, token: nil, traceId: done.traceID)
    }

    private static func decode<Options: Decodable>(_ json: JSONValue) throws(ZSMError) -> Options {
        do {
            return try JSONDecoder().decode(Options.self, from: JSONEncoder().encode(json))
        } catch {
            throw ZSMError(.serverError, "the server's options could not be read")
        }
    }
}
