import Foundation
import Hummingbird
import NIOCore

/// The client address a request is counted under by the abuse limits: the connected peer's IP
/// address, or, when the server is configured to trust a reverse proxy, the last address that
/// proxy appended to `X-Forwarded-For`.
enum ClientAddress {
    private static let forwardedFor = HTTPFields.Element.Name("X-Forwarded-For")

    /// The address of `request` as ``RequestScopeMiddleware`` sets it on the context.
    static func of(_ request: Request, peer: SocketAddress?, trustForwardedFor: Bool) -> String {
        if trustForwardedFor, let name = forwardedFor, let forwarded = request.headers[name],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return String(last.prefix(64))
        }
        return peer?.ipAddress ?? "unknown"
    }
}
