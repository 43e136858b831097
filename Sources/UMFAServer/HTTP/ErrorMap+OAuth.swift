import Foundation
import Hummingbird
import Logging
import UMFAContract

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
            (status, code, description) = (Self.status(of: error.kind), error.code, error.description)
            if error.basicChallenge { headers[.wwwAuthenticate] = #"Basic realm="umfa""# }
            if let nonce = error.dpopNonce { headers[.dpopNonce] = nonce }
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
