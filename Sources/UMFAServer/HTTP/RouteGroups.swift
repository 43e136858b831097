import Hummingbird
import Logging
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
    let issuers: IssuerDirectory
    let logger: Logger
    let adminAuthorization: AdminAuthorization
    private var groups: [Kind: RouterGroup<UMFARequestContext>] = [:]

    init(
        router: Router<UMFARequestContext>, issuers: IssuerDirectory, logger: Logger,
        adminAuthorization: AdminAuthorization
    ) {
        self.router = router
        self.issuers = issuers
        self.logger = logger
        self.adminAuthorization = adminAuthorization
    }

    /// The group a declared operation belongs in, made the first time it is asked for.
    mutating func group(for declaration: OperationDeclaration) -> RouterGroup<UMFARequestContext> {
        let kind = Kind(declaration)
        if let group = groups[kind] { return group }
        var group = router.group()
        if kind.shape == .oauth || kind.shape == .problem {
            group = group.add(middleware: ErrorRendering(shape: kind.shape, logger: logger))
        }
        if kind.admin { group = group.add(middleware: adminAuthorization) }
        // The client-authenticated form routes read their issuer with the client (OAuthRoutes).
        if kind.underIssuer, !kind.clientForm { group = group.add(middleware: IssuerResolution(issuers: issuers)) }
        groups[kind] = group
        return group
    }
}
