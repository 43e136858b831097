import Crypto
import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Client attestation for the API-flow token (docs/contract.md §6): a public client proves it is the
/// application's genuine app by an Apple App Attest attestation or an Android key-attestation
/// chain, made for a challenge of ``newChallenge()``.
///
/// At the token endpoint: `grant_type=client_credentials`, `scope=urn:umfa:api-flow`,
/// `client_id`, `attestation_challenge`, `client_assertion_type` one of ``appleType`` (then
/// `client_assertion` is the attestation object, base64url) or ``androidType`` (the chain's DER
/// certificates, leaf first, each base64url, joined by `.`). The apps are the application's
/// `apple_app_ids` and `android_apps`; the roots, Apple's App Attestation root and Google's
/// hardware attestation roots (plus any the server was given).
struct ClientAttestationCheck: Sendable {
    let store: any OAuthClientStore
    /// Where attestation challenges are kept.
    let grants: OAuthGrants
    let clientAuthentication: OAuthClientAuthentication
    let abuse: AbuseGuard
    /// The roots attestations are judged against.
    let attestationAnchors: AttestationTrustAnchors
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer

    /// The scope of an API-flow token.
    static let apiFlowScope = "urn:umfa:api-flow"
    static let typePrefix = "urn:umfa:client-attestation:"
    static let appleType = typePrefix + "apple-app-attest"
    static let androidType = typePrefix + "android-key"
    /// How long a challenge stays good.
    static let challengeLifetime = 300

    /// Whether the form carries a client attestation rather than a client assertion.
    static func isAttestation(_ form: OAuthForm) -> Bool {
        form["client_assertion_type"]?.hasPrefix(typePrefix) == true
    }

    private struct Challenge: Codable, Sendable {}

    /// A new challenge, stored by its hash until it is used or expires (rate-limited per address,
    /// as the ceremony options are: each one is a row).
    func newChallenge(caller: Caller) async throws -> AttestationChallengeResponse {
        try abuse.countOptionsRequest(caller)
        let challenge =
            try await grants
            .create(
                .attestationChallenge, Challenge(), lifetime: TimeInterval(Self.challengeLifetime), prefix: "umfa_ac_")
        return AttestationChallengeResponse(challenge: challenge, expiresIn: Self.challengeLifetime)
    }

    /// The public client named by the form, once its attestation verifies; `invalid_client`
    /// (counted against the address) when it does not.
    func authenticate(form: OAuthForm, authorization: String?, caller: Caller) async throws -> OAuthClientRecord {
        let authentication = clientAuthentication
        guard authorization == nil, form["client_secret"] == nil else {
            throw OAuthError.invalidRequest("Use one client authentication method, not two")
        }
        guard let clientID = form["client_id"] else {
            throw OAuthError(code: .invalidClient, "client_id is required with a client attestation")
        }
        guard let assertion = form["client_assertion"], let challenge = form["attestation_challenge"] else {
            throw OAuthError.invalidRequest("A client attestation needs client_assertion and attestation_challenge")
        }
        let failure = OAuthError(code: .invalidClient, "Client authentication failed")
        guard
            let client = try await issuer.client(clientID, store: store)
        else { try await authentication.refuse(caller, counting: true, .unknownClient, clientID: clientID, failure) }
        guard client.authenticationMethod == .none else {
            try await authentication.refuse(
                caller, counting: false, .wrongMethod, clientID: clientID,
                OAuthError(
                    code: .invalidClient, "Client attestation is for public clients; this one has a secret or keys"))
        }
        // The challenge is the server's, live, and spent now: one attestation per challenge.
        let (found, _) =
            try await grants
            .consume(.attestationChallenge, challenge, as: Challenge.self)
        guard found != nil else {
            try await authentication.refuse(
                caller, counting: true, .badAttestation, clientID: clientID,
                OAuthError(code: .invalidClient, "The attestation challenge is unknown, expired or used"))
        }
        do {
            try await verify(form["client_assertion_type"] ?? "", assertion, challenge: challenge)
        } catch let error as WebAuthnError {
            try await authentication.refuse(
                caller, counting: true, .badAttestation, clientID: clientID,
                OAuthError(code: .invalidClient, "Client attestation failed: \(error.message)"))
        }
        return client
    }

    private func verify(_ type: String, _ assertion: String, challenge: String) async throws {
        let anchors = attestationAnchors
        let now = self.now()
        let application = issuer.application
        switch type {
        case Self.appleType:
            guard let object = Base64URL.decode(assertion) else {
                throw OAuthError.invalidRequest("client_assertion must be the attestation object, base64url")
            }
            _ = try await AppAttestVerifier(anchors: anchors)
                .verify(
                    attestationObject: object, clientDataHash: Array(SHA256.hash(data: Array(challenge.utf8))),
                    appIDs: application.appleAppIDs, at: now)
        case Self.androidType:
            let chain = assertion.split(separator: ".").map { Base64URL.decode(String($0)) }
            guard !chain.isEmpty, chain.allSatisfy({ $0 != nil }) else {
                throw OAuthError.invalidRequest(
                    "client_assertion must be the certificates, base64url, leaf first, joined by '.'")
            }
            let apps = application.androidApps.map { app in
                AcceptedAndroidApp(
                    packageName: app.packageName,
                    signingCertificateDigests: app.sha256CertFingerprints.compactMap {
                        Hex.decode($0.replacingOccurrences(of: ":", with: ""))
                    })
            }
            _ = try await AndroidAppAttestationVerifier(anchors: anchors)
                .verify(chain: chain.compactMap { $0 }, challenge: Array(challenge.utf8), apps: apps, at: now)
        default:
            throw OAuthError(
                code: .invalidClient, "client_assertion_type must be \(Self.appleType) or \(Self.androidType)")
        }
    }
}
