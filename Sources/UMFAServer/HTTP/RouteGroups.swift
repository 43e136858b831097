import Hummingbird
import UMFAContract

/// The route groups of the router, one per combination of what a declaration says about the
/// middleware a route needs: its error shape, whether it is an admin operation, whether it lies
/// under an issuer, and whether its form names an OAuth client.
struct RouteGroups {
    private struct Kind: Hashable {
        let shape: APIOperation.ErrorShape
        let admin: Bool
        let underIssuer: Bool
        let clientForm: Bool

        init(_ declaration: OperationDeclaration) {
            shape = declaration.errorShape
            admin = declaration.access == .adminToken
            underIssuer = declaration.isUnderIssuer
            clientForm = declaration.access == .oauthClient
        }
    }

    let router: Router<UMFARequestContext>
    let services: ServerServices
    let issuers: IssuerDirectory
    private var groups: [Kind: RouterGroup<UMFARequestContext>] = [:]

    init(router: Router<UMFARequestContext>, services: ServerServices, issuers: IssuerDirectory) {
        self.router = router
        self.services = services
        self.issuers = issuers
    }

    /// The group a declared operation belongs in, made the first time it is asked for.
    mutating func group(for declaration: OperationDeclaration) -> RouterGroup<UMFARequestContext> {
        let kind = Kind(declaration)
        if let group = groups[kind] { return group }
        var group = router.group()
        if kind.shape == .oauth || kind.shape == .problem {
            group = group.add(middleware: ErrorRendering(shape: kind.shape, services: services))
        }
        if kind.admin { group = group.add(middleware: AdminAuthorization(services: services)) }
        // The client-authenticated form routes read their issuer with the client (OAuthRoutes).
        if kind.underIssuer, !kind.clientForm { group = group.add(middleware: IssuerResolution(issuers: issuers)) }
        groups[kind] = group
        return group
    }
}
