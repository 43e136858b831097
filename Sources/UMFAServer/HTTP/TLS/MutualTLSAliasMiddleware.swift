import Hummingbird

/// The mutual-TLS endpoint alias (RFC 8705 §5): on its listener only the endpoints a client
/// authenticates at or presents a bound token to answer — token, PAR, introspection,
/// revocation, device authorization and UserInfo — every other path is not found there, so a browser never meets
/// the certificate prompt. The certificate of the connection's handshake goes onto the request
/// context for the OAuth layer to judge.
struct MutualTLSAliasMiddleware: RouterMiddleware {
    typealias Context = UMFARequestContext

    /// The alias's advertised base URL (`mtls_endpoint_aliases`), which DPoP proofs sent to the
    /// alias name in `htu`.
    let aliasBase: String?

    /// The endpoints under `/oidc/{application_id}/` the alias serves.
    static let endpoints: Set<Substring> = [
        "token", "par", "introspect", "revoke", "userinfo", "device_authorization", "bc-authorize",
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let connection = TLSConnection.current, connection.mutualTLSAlias else {
            return try await next(request, context)
        }
        guard Self.served(request.uri.path) else { throw HTTPError(.notFound) }
        var context = context
        context.clientCertificate = connection.clientCertificate
        context.address = RequestAddress(mutualTLSAliasBase: aliasBase)
        return try await next(request, context)
    }

    /// Whether `path` is `/oidc/{application_id}/{endpoint}` with an alias endpoint.
    static func served(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0].isEmpty && parts[1] == "oidc" && !parts[2].isEmpty
            && endpoints.contains(parts[3])
    }
}
