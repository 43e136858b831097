import Foundation
import Hummingbird
import NIOCore

/// The request context of every UMFA route: Hummingbird's basic context plus what a request is
/// judged by — the connected peer, the client address the abuse limits count by, the trace id
/// once settled, and how long its body may take to arrive. ``RequestScopeMiddleware`` fills
/// in the address and the timeout from the server configuration.
struct UMFARequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    var coreContext: CoreRequestContextStorage
    /// The connected peer, or `nil` when there is no socket (in-process tests).
    let remoteAddress: SocketAddress?
    /// The client address (the peer, or the proxy's `X-Forwarded-For` entry when trusted).
    var clientAddress: String
    /// How long the request body may take to arrive.
    var bodyReadTimeout: Duration = .seconds(10)
    /// The request's trace id once a route has settled it.
    let trace = TraceSlot()
    /// The JSON body, when a middleware had to read it before the route (``AdminAuthorization``),
    /// so the route does not read and parse it again.
    var readBody: JSONExchange.Body?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The caller as the domain sees it, with the settled trace id.
    func caller(_ request: Request, traceID: String) -> Caller {
        Caller(
            traceID: traceID, clientAddress: clientAddress, bearer: BearerToken.from(request),
            deviceProof: BearerToken.deviceProof(request))
    }
}
