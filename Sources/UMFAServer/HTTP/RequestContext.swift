import Hummingbird
import NIOCore

/// The request context of every UMFA route: Hummingbird's basic context plus the connected
/// peer's address, which the abuse limits count by.
struct UMFARequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    var coreContext: CoreRequestContextStorage
    /// The connected peer, or `nil` when there is no socket (in-process tests).
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
