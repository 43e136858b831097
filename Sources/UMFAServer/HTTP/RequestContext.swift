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
    /// The issuer of a route under `/oidc/{application_id}`, resolved once by
    /// ``IssuerResolution`` before the route runs.
    var issuer: OAuthIssuer?
    /// The client certificate of this request (RFC 8705): from the mutual-TLS handshake, or
    /// from a trusted proxy's header; `nil` when none was presented or trusted.
    var clientCertificate: PresentedClientCertificate?
    /// Where the request was addressed: the public listener, or the mutual-TLS alias
    /// (RFC 8705 §5) set by ``MutualTLSAliasMiddleware``; the one source of endpoint URLs.
    var address = RequestAddress.publicListener

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The issuer ``IssuerResolution`` resolved for this route.
    func resolvedIssuer() throws -> OAuthIssuer {
        guard let issuer else {
            throw ServiceError(.internalFailure, "Internal server error", detail: "route without its issuer")
        }
        return issuer
    }

    /// The caller as the domain sees it, with the settled trace id.
    func caller(_ request: Request, traceID: String) -> Caller {
        var caller = Caller(
            traceID: traceID, clientAddress: clientAddress, bearer: BearerToken.from(request),
            deviceProof: BearerToken.deviceProof(request))
        caller.clientCertificate = clientCertificate
        caller.address = address
        return caller
    }
}
