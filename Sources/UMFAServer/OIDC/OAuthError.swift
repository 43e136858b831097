import Foundation
import Hummingbird
import Logging
import UMFAContract

/// An error of an OAuth endpoint, in RFC 6749 §5.2 terms: the error code a client library
/// acts on, the description for its developer, and the HTTP status.
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

    var status: HTTPResponse.Status {
        switch code {
        case .invalidClient, .invalidToken: .unauthorized
        case .temporarilyUnavailable: .serviceUnavailable
        case .serverError: .internalServerError
        default: .badRequest
        }
    }
}

extension ErrorMap {
    /// The RFC 6749 §5.2 answer for any error of an OAuth endpoint: an ``OAuthError`` as it
    /// is; UMFA's own errors (a body too large, a rate limit, the database away) by their status
    /// with the nearest OAuth code, so every OAuth client library can read the answer.
    static func oauthResponse(for error: any Error, traceID: String, logger: Logger) -> Response {
        let (status, body, headers) = oauthAnswer(for: error, traceID: traceID, logger: logger)
        let data = (try? JSONExchange.encode(body)) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The status, body and headers of ``oauthResponse(for:traceID:logger:)``. A
    /// ``ServiceError``'s status and `error` come from its code alone (through
    /// ``answer(for:traceID:logger:)``), never from its message.
    static func oauthAnswer(for error: any Error, traceID: String, logger: Logger) -> (
        HTTPResponse.Status, OAuthErrorResponse, HTTPFields
    ) {
        let status: HTTPResponse.Status
        let code: OAuthError.Code
        let description: String
        var headers: HTTPFields = [:]
        if let error = error as? OAuthError {
            (status, code, description) = (error.status, error.code, error.description)
            if error.basicChallenge { headers[.wwwAuthenticate] = #"Basic realm="umfa""# }
            if let nonce = error.dpopNonce { headers[DPoPCheck.nonceHeader] = nonce }
        } else {
            let answer = answer(for: error, traceID: traceID, logger: logger)
            (status, description, headers) = answer
            switch status.code {
            case 401: code = .invalidClient
            case 400..<500: code = .invalidRequest
            case 503: code = .temporarilyUnavailable
            default: code = .serverError
            }
        }
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return (
            status, OAuthErrorResponse(error: code.rawValue, errorDescription: description, traceID: traceID), headers
        )
    }
}
