import Foundation
import UMFAContract

/// An error of an OAuth endpoint, in RFC 6749 §5.2 terms: the error code a client library
/// acts on and the description for its developer; its HTTP status is the edge's to choose
/// (``DomainError/kind``).
struct OAuthError: Error, Sendable, Equatable {
    /// RFC 6749 §5.2, RFC 7009 §2.2.1 and RFC 6750 §3.1 error codes.
    enum Code: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
        case unsupportedTokenType = "unsupported_token_type"
        case temporarilyUnavailable = "temporarily_unavailable"
        case serverError = "server_error"
        case accessDenied = "access_denied"
        case unsupportedResponseType = "unsupported_response_type"
        case loginRequired = "login_required"
        case consentRequired = "consent_required"
        case invalidToken = "invalid_token"
        /// RFC 9449 §5.2, §7.1.
        case invalidDPoPProof = "invalid_dpop_proof"
        /// RFC 9449 §8: send the proof again with the nonce in `DPoP-Nonce`.
        case useDPoPNonce = "use_dpop_nonce"
        /// RFC 7591 §3.2.2.
        case invalidRedirectURI = "invalid_redirect_uri"
        /// RFC 7591 §3.2.2.
        case invalidClientMetadata = "invalid_client_metadata"
        /// RFC 7591 §3.2.2.
        case invalidSoftwareStatement = "invalid_software_statement"
        /// RFC 8707 §2: the resource is not one this authorization server issues tokens for.
        case invalidTarget = "invalid_target"
        /// RFC 8628 §3.5: the person has not decided yet; poll again after the interval.
        case authorizationPending = "authorization_pending"
        /// RFC 8628 §3.5: polled too soon; the interval grows by 5 seconds.
        case slowDown = "slow_down"
        /// RFC 8628 §3.5: the device code expired; start again.
        case expiredToken = "expired_token"
        /// RFC 9101 §6.3: the request object is not valid.
        case invalidRequestObject = "invalid_request_object"
        /// OpenID Connect Unmet Authentication Requirements 1.0: the sign-in did not reach the
        /// authentication context the request requires (an essential `acr`).
        case unmetAuthenticationRequirements = "unmet_authentication_requirements"
        /// RFC 9396 §5: `authorization_details` is malformed or names a type not declared.
        case invalidAuthorizationDetails = "invalid_authorization_details"
        /// OpenID CIBA Core 1.0 §13: the binding message is too long or not text to show.
        case invalidBindingMessage = "invalid_binding_message"
    }

    let code: Code
    let description: String
    /// Whether the client tried HTTP Basic: a 401 then names the scheme (RFC 6749 §5.2).
    var basicChallenge = false
    /// A fresh DPoP nonce for the `DPoP-Nonce` header (RFC 9449 §8).
    var dpopNonce: String? = nil

    static func invalidRequest(_ description: String) -> OAuthError { OAuthError(code: .invalidRequest, description) }

    init(code: Code, _ description: String, basicChallenge: Bool = false) {
        self.code = code
        self.description = description
        self.basicChallenge = basicChallenge
    }
}
