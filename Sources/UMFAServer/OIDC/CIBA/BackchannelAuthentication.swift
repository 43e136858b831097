import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// The backchannel authentication endpoint (OpenID CIBA Core 1.0 §7): a client registered for
/// the CIBA grant names a person, and UMFA asks that person's device for an out-of-band approval
/// (``OutOfBandService``) showing the binding message and the authorization details, whose
/// decision the passkey signs (docs/ciba.md). The client then polls the token endpoint
/// (``CIBAGrant``), or in ping mode waits for a ping first.
///
/// An unknown person, one without a passkey, or one whose phone already has
/// ``CIBAHints/pendingLimit`` approvals waiting, gets the same answer as anyone else: the request
/// just never ends but by expiring (§7.3 allows `unknown_user_id`; UMFA never says it, so the
/// endpoint cannot be used to learn who has an account).
struct BackchannelAuthentication: Sendable {
    let issuer: OAuthIssuer
    let authentication: ClientAuthenticationChain
    let grants: OAuthGrants
    let approvals: OutOfBandService
    let hints: CIBAHints
    let sealed: SealedSecrets

    /// `expires_in` without `requested_expiry`, and the range a requested one is held to.
    static let defaultExpiry = 300
    static let expiryRange = 60...600
    /// The first polling interval; each `slow_down` adds ``DeviceAuthorization/slowDownStep``.
    static let interval = 5
    static let authReqIDPrefix = "umfa_ar_"
    /// The longest `binding_message`, in Unicode scalars (§7.1: short enough for a small screen).
    static let bindingMessageLength = 128
    /// The longest `client_notification_token` (§7.1 asks for at least 128 bits of entropy).
    static let notificationTokenLength = 1024

    /// What an `auth_req_id` stands for while the person decides.
    struct Pending: PolledRequest {
        var clientID: String
        var scopes: [String]
        /// The approval on the person's device; `nil` for a person unknown or without a passkey.
        var transactionID: String?
        /// Seconds the client must wait between polls; grows with each `slow_down`.
        var interval: Int
        /// The last poll, seconds since 1970.
        var lastPoll: Int?
        /// What the person is asked to authorize (RFC 9396).
        var authorizationDetails: AuthorizationDetails?
    }

    /// `POST <issuer>/bc-authorize`.
    func authenticate(_ request: TokenRequest) async throws -> BackchannelAuthenticationResponse {
        // Step 1 (§7.1): the client, authenticated as at the token endpoint, registered for CIBA.
        let client = try await authentication.registeredMethod(request)
        guard client.grantTypes.contains(CIBAGrant.grantType) else {
            throw OAuthError(code: .unauthorizedClient, "The client may not use \(CIBAGrant.grantType)")
        }
        let form = request.form
        // Step 2 (§7.1): the scope holds openid.
        let scopes = try GrantScopes.granted(try form.require("scope"), allowed: client.grantableScopes)
        guard scopes.contains("openid") else {
            throw OAuthError(code: .invalidScope, "scope must hold openid (OpenID CIBA Core §7.1)")
        }
        guard form["user_code"] == nil else {
            throw OAuthError.invalidRequest("user_code is not supported (backchannel_user_code_parameter_supported)")
        }
        guard form["request"] == nil else {
            throw OAuthError.invalidRequest(
                "Signed authentication requests (request, CIBA Core §7.1.1) are not supported")
        }
        // Step 3 (§7.1): the binding message, the expiry, the ping token, the details.
        let message = form["binding_message"] ?? ""
        guard message.unicodeScalars.count <= Self.bindingMessageLength, Self.isShowable(message) else {
            throw OAuthError(
                code: .invalidBindingMessage,
                "binding_message must be at most \(Self.bindingMessageLength) characters of visible text")
        }
        let expiry = try Self.expiry(form["requested_expiry"])
        let ping = client.settings.backchannelTokenDeliveryMode == "ping"
        let notificationToken = form["client_notification_token"]
        if ping {
            guard let notificationToken, !notificationToken.isEmpty,
                notificationToken.utf8.count <= Self.notificationTokenLength
            else {
                throw OAuthError.invalidRequest(
                    "A ping-mode client sends client_notification_token (at most \(Self.notificationTokenLength) bytes)"
                )
            }
        }
        var details: AuthorizationDetails?
        if let text = form["authorization_details"] {
            do {
                details = try AuthorizationDetails.parse(text, types: issuer.application.authorizationDetailsTypes)
            } catch {
                throw OAuthError(code: .invalidAuthorizationDetails, error.reason)
            }
        }
        if let acrValues = form["acr_values"], acrValues.utf8.count > 1024 {
            throw OAuthError.invalidRequest("acr_values is too long")
        }
        // Step 4 (§7.1): exactly one hint names the person.
        let userID = try await hints.user(form, client: client)
        // Step 5 (§7.3): the request, and the approval on the person's device.
        let authReqID = Secrets.make(prefix: Self.authReqIDPrefix)
        var transactionID: String?
        if let userID, try await hints.canBeAsked(userID) {
            let sealedPing = try notificationToken.flatMap { token in
                try client.settings.backchannelClientNotificationEndpoint.map {
                    try CIBAPing(
                        endpoint: $0, token: token, authReqID: authReqID, clientID: client.clientID,
                        publicOnly: client.isSelfRegistered
                    ).sealed(with: sealed)
                }
            }
            let started = try await approvals.startApproval(
                application: issuer.application, userID: userID,
                message: Self.approvalMessage(client: client, scopes: scopes, bindingMessage: message),
                details: details, ttl: expiry,
                numberMatching: false, sealedPing: ping ? sealedPing : nil, caller: request.caller)
            transactionID = started.transactionId
        }
        try await grants.store(
            .cibaRequest, handleHash: Secrets.hash(authReqID),
            Pending(
                clientID: client.clientID, scopes: scopes, transactionID: transactionID, interval: Self.interval,
                authorizationDetails: details),
            lifetime: TimeInterval(expiry), subject: userID)
        return BackchannelAuthenticationResponse(authReqID: authReqID, expiresIn: expiry, interval: Self.interval)
    }

    /// What the phone shows above the authorization details: a line the server writes, naming the
    /// client (and that it registered itself) and the scopes, then the client's binding message.
    static func approvalMessage(client: OAuthClientRecord, scopes: [String], bindingMessage: String) -> String {
        let name = LogText.escape(client.name) + (client.isSelfRegistered ? " (registered itself)" : "")
        let header = "\(name) asks for: \(scopes.joined(separator: ", "))"
        return bindingMessage.isEmpty ? header : header + "\n" + bindingMessage
    }

    /// Whether `message` is one line of visible text: spaces (U+0020) between visible scalars, no
    /// other space, control, format or unassigned scalar, judged per Unicode scalar.
    static func isShowable(_ message: String) -> Bool {
        message.unicodeScalars.allSatisfy { scalar in
            if scalar == " " { return true }
            switch scalar.properties.generalCategory {
            case .control, .format, .privateUse, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator,
                .spaceSeparator:
                return false
            default:
                return !LogText.isUnsafe(scalar)
            }
        }
    }

    /// `requested_expiry` (§7.1), held to ``expiryRange``; ``defaultExpiry`` when absent.
    static func expiry(_ text: String?) throws -> Int {
        guard let text else { return defaultExpiry }
        guard text.utf8.count <= 10, let seconds = Int(text), seconds > 0 else {
            throw OAuthError.invalidRequest("requested_expiry must be a positive number of seconds")
        }
        return min(max(seconds, expiryRange.lowerBound), expiryRange.upperBound)
    }
}
