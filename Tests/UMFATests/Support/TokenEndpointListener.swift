import Foundation
import Synchronization
import UMFA

/// A token-endpoint listener that keeps what it heard: each answer's status, and the bodies and
/// headers of successes and refusals, in `Sendable` form.
final class StatusListener: OAuthTokenManager.TokenEndpointResponseListener {
    struct Heard: Sendable, Equatable {
        var kind: String
        var status: Int?
        var body: [String: String]
        var headers: [String: String]
        /// The typed payload's main member: the access token, or the refusal's error code.
        var typed: String?
    }

    private let heard = Mutex<[Heard]>([])

    var all: [Heard] { heard.withLock { $0 } }
    var statuses: [Int] { all.compactMap(\.status) }

    private func record(_ kind: String, _ content: HTTPURLResponseContent, typed: String?) {
        let body = content.dataAsDictionary.compactMapValues { $0 as? String }
        let entry = Heard(
            kind: kind, status: content.httpURLResponse?.statusCode, body: body, headers: content.headerFields,
            typed: typed)
        heard.withLock { $0.append(entry) }
    }

    func onSuccess(_ value: OAuthTokenManager.SuccessTokenHTTPURLResponseContent) {
        record(
            value.error == nil ? "success" : "success with an error", value,
            typed: value.successfulTokenResponse.accessToken)
    }

    func onError(_ value: ErrorHTTPURLResponseContent) { record("error", value, typed: "\(value.error)") }

    func onTokenError(_ value: OAuthTokenManager.ErrorTokenHTTPURLResponseContent) {
        record("token-error", value, typed: value.errorTokenResponse.error)
    }
}

/// `body` with its completion handler awaited.
func awaiting<Value: Sendable>(_ body: (@escaping @Sendable (Value) -> Void) -> Void) async -> Value {
    await withCheckedContinuation { continuation in body { continuation.resume(returning: $0) } }
}
