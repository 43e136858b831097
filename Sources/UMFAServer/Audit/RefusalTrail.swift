import Foundation
import Logging
import UMFAEncoding

/// Why a client authentication was refused (docs/operators/metrics.md): the `reason` label of
/// `umfa_client_authentication_refusals_total` and of the log line. A fixed set, never text a
/// caller sent.
enum ClientAuthenticationRefusal: String, Sendable, CaseIterable {
    /// No client named, or a form with no credentials for a client that needs them.
    case missingCredentials = "missing_credentials"
    /// The named client does not exist at this issuer.
    case unknownClient = "unknown_client"
    /// A method other than the one the client registered (its token endpoint
    /// authentication method, RFC 7591 §2).
    case wrongMethod = "wrong_method"
    /// A wrong `client_secret`.
    case wrongSecret = "wrong_secret"
    /// A client assertion that is malformed, badly signed, expired or for another audience (RFC 7523).
    case badAssertion = "bad_assertion"
    /// A client assertion whose `jti` was used before.
    case replayedAssertion = "replayed_assertion"
    /// A client attestation that does not verify, or an unknown or used attestation challenge.
    case badAttestation = "bad_attestation"
    /// A certificate client without a certificate (RFC 8705 §2).
    case noCertificate = "no_certificate"
    /// A certificate that does not chain, may not sign, or names another subject (RFC 8705 §2).
    case badCertificate = "bad_certificate"
}

/// Why a presented token was refused: the `reason` label of `umfa_token_refusals_total`.
enum TokenRefusal: String, Sendable, CaseIterable {
    /// Not a valid token of this issuer now: forged, expired, revoked, another issuer's.
    case invalid
    /// A valid token the endpoint does not take (its scope, audience or kind).
    case notAccepted = "not_accepted"
    /// A DPoP-bound token sent as `Bearer`, or an unbound one as `DPoP` (RFC 9449 §7).
    case wrongScheme = "wrong_scheme"
    /// A missing or wrong DPoP proof for a DPoP-bound token (RFC 9449 §7).
    case badDPoPProof = "bad_dpop_proof"
    /// A certificate-bound token without its certificate (RFC 8705 §3).
    case wrongCertificate = "wrong_certificate"
    /// validate-token: an assertion (`token_type` `credential`) that does not verify.
    case badCredential = "bad_credential"
}

/// Where a token was refused: the `endpoint` label of `umfa_token_refusals_total`.
enum TokenRefusalEndpoint: String, Sendable {
    /// An access token at a protected resource (UserInfo, `/me`, registration with a `dcr` token).
    case protectedResource = "protected_resource"
    /// validate-token (docs/contract.md §3).
    case validateToken = "validate_token"
}

/// The operator's trace of refused credentials (docs/contract.md §4, "Refusals are seen by the
/// operator"): one log line at notice level and one counter per refusal. The line names the reason,
/// the client (or application), the client address and the trace id the client was given; never the
/// secret, the assertion or the token. Caller-sent text is escaped per Unicode scalar and cut short
/// (``LogText``).
struct RefusalTrail: Sendable {
    let metrics: ServerMetrics
    let logger: Logger

    /// The longest client id a log line repeats, in Unicode scalars.
    static let clientIDLimit = 128

    /// A client authentication was refused.
    func clientAuthentication(_ reason: ClientAuthenticationRefusal, clientID: String?, caller: Caller) {
        metrics.clientAuthenticationRefused(reason.rawValue)
        logger.notice(
            "client authentication refused",
            metadata: [
                "refusal.reason": .string(reason.rawValue), "client.id": .string(Self.shown(clientID)),
                "client.address": .string(Self.shown(caller.clientAddress)),
                "trace.id": .string(Self.shown(caller.traceID)),
            ])
    }

    /// A presented token was refused; `clientID` is the OAuth client the token names, when
    /// known; `applicationID` the application whose API key asked (validate-token).
    func token(
        _ reason: TokenRefusal, at endpoint: TokenRefusalEndpoint, clientID: String?, applicationID: UUID? = nil,
        address: String, traceID: String
    ) {
        metrics.tokenRefused(endpoint: endpoint.rawValue, reason: reason.rawValue)
        var metadata: Logger.Metadata = [
            "refusal.reason": .string(reason.rawValue), "refusal.endpoint": .string(endpoint.rawValue),
            "client.id": .string(Self.shown(clientID)), "client.address": .string(Self.shown(address)),
            "trace.id": .string(Self.shown(traceID)),
        ]
        if let applicationID { metadata["application.id"] = .string(applicationID.uuidString.lowercased()) }
        logger.notice("token refused", metadata: metadata)
    }

    /// `text` escaped for a log line and cut to ``clientIDLimit`` scalars; `-` when absent.
    static func shown(_ text: String?) -> String {
        guard let text else { return "-" }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.prefix(clientIDLimit))
        let cut = scalars.count < text.unicodeScalars.count
        return LogText.escape(String(scalars)) + (cut ? "…" : "")
    }
}
