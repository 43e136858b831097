import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OAuthTokenManager {
    /// Told of every answer of the token endpoint, with its body and headers (a `DPoP-Nonce`,
    /// say), Curity's `OAuthTokenManager.TokenEndpointResponseListener`. Set it as
    /// ``OAuthConfiguration/tokenEndpointResponseListener``; it is called before the request's
    /// ``TokenResponse`` is returned, on the caller's task.
    public protocol TokenEndpointResponseListener: Sendable {
        /// Tokens were issued.
        func onSuccess(_ value: SuccessTokenHTTPURLResponseContent)
        /// The request failed without a token-endpoint refusal: no answer (then
        /// `httpURLResponse` is `nil`), or one that does not read.
        func onError(_ value: ErrorHTTPURLResponseContent)
        /// The server refused (RFC 6749 §5.2).
        func onTokenError(_ value: ErrorTokenHTTPURLResponseContent)
    }

    /// A successful answer: the tokens and the raw answer.
    public final class SuccessTokenHTTPURLResponseContent: HTTPURLResponseContent {
        /// The tokens.
        public let successfulTokenResponse: SuccessfulTokenResponse
        /// Always `nil`: the request succeeded.
        public var error: (any Error)? { nil }

        init(_ tokens: SuccessfulTokenResponse, answer: OAuthSession.Answer, url: URL) {
            successfulTokenResponse = tokens
            super.init(answer: answer, url: url)
        }
    }

    /// A refusal: the RFC 6749 §5.2 error and the raw answer.
    public final class ErrorTokenHTTPURLResponseContent: HTTPURLResponseContent {
        /// The refusal.
        public let errorTokenResponse: ErrorTokenResponse

        init(_ refusal: ErrorTokenResponse, answer: OAuthSession.Answer, url: URL) {
            errorTokenResponse = refusal
            super.init(answer: answer, url: url)
        }
    }
}

/// What the token endpoint answered, as the listener sees it: the body (`data`, and as a
/// dictionary), the HTTP response and its headers.
public class HTTPURLResponseContent {
    /// The body as received.
    public let data: Data
    /// The body's JSON object (empty when it is none).
    public let dataAsDictionary: [String: Any]
    /// The HTTP response; `nil` when no answer came.
    public let httpURLResponse: HTTPURLResponse?
    /// The headers, names lower case (`dpop-nonce`, `cache-control`, …).
    public let headerFields: [String: String]

    init(answer: OAuthSession.Answer?, url: URL) {
        data = answer?.data ?? Data()
        dataAsDictionary =
            answer.flatMap { (try? JSONSerialization.jsonObject(with: $0.data)) as? [String: Any] } ?? [:]
        headerFields = answer?.headers ?? [:]
        httpURLResponse = answer.flatMap {
            HTTPURLResponse(url: url, statusCode: $0.status, httpVersion: "HTTP/1.1", headerFields: $0.headers)
        }
    }
}

/// A token request that failed without a refusal: the error and what came back, if anything.
public final class ErrorHTTPURLResponseContent: HTTPURLResponseContent {
    /// What went wrong.
    public let error: any Error

    init(_ error: ZSMError, answer: OAuthSession.Answer?, url: URL) {
        self.error = error
        super.init(answer: answer, url: url)
    }
}
