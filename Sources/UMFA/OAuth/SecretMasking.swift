import Foundation
import Logging

/// What the SDK writes to its log: operations and HTTP exchanges by method, path, status and the
/// names of what was sent, never a value that could be a secret. Tokens, codes, PINs, keys,
/// proofs, client secrets, `state`, `nonce` and PKCE values are replaced by ``masked`` at every
/// log level, so a log captured at `trace` is as safe to share as one at `error`.
enum SecretMasking {
    /// What stands in for a secret.
    static let masked = "[masked]"

    /// `url` without its query and fragment, with the query's parameter names kept.
    static func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return masked }
        let names = components.queryItems?.map(\.name) ?? []
        components.query = nil
        components.fragment = nil
        // A flow id is a bearer-like handle in the path: mask the segment after `/flow/`.
        var path = components.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let index = path.firstIndex(of: "flow"), index + 1 < path.count { path[index + 1] = masked }
        components.path = ""
        let base = (components.string ?? "") + path.joined(separator: "/")
        return names.isEmpty ? base : base + "?" + names.map { "\($0)=\(masked)" }.joined(separator: "&")
    }

    /// The names of a form's or a JSON body's members, values masked.
    static func members(_ names: some Sequence<String>) -> String {
        names.sorted().map { "\($0)=\(masked)" }.joined(separator: " ")
    }
}

extension Logger {
    /// A logger that writes nothing: the SDK's default when the app gives none.
    static var silent: Logger { Logger(label: "umfa.sdk") { _ in SwiftLogNoOpLogHandler() } }
}
