import Hummingbird
import Prometheus

/// Every route of the HTTP API v1 (DESIGN.md §2), in one place.
enum Routes {
    /// The routes as `METHOD path`, for the test that keeps `openapi.yaml` true.
    static let table: [String] = [
        "POST /api/umfa/registration/options", "POST /api/umfa/registration/verify",
        "POST /api/umfa/authentication/options", "POST /api/umfa/authentication/verify", "POST /api/umfa/unenroll",
        "POST /api/umfa/validate-token", "POST /api/umfa/enrollment-tokens",
        "GET /api/umfa/users/{user_id}/credentials", "DELETE /api/umfa/users/{user_id}/credentials/{credential_id}",
        "POST /api/admin/applications", "GET /api/admin/applications", "GET /api/admin/applications/{id}",
        "PATCH /api/admin/applications/{id}", "POST /api/admin/applications/{id}/api-keys",
        "GET /api/admin/applications/{id}/api-keys", "DELETE /api/admin/applications/{id}/api-keys/{key_id}",
        "POST /api/admin/signing-keys",
        "GET /.well-known/jwks.json", "GET /health", "GET /metrics", "GET /openapi.yaml", "GET /",
        "GET /demo/demo.css", "GET /demo/demo.js", "POST /api/demo/validate-token",
        "GET /api/demo/users/{user_id}/credentials", "DELETE /api/demo/users/{user_id}/credentials/{credential_id}",
    ]

    static func install(
        on router: Router<UMFARequestContext>, services: ServerServices, metrics: PrometheusCollectorRegistry,
        demoRoutes: Bool = true
    ) {
        router.add(middleware: RequestMetricsMiddleware(registry: metrics))
        router.add(middleware: ErrorMiddleware())
        let registration = RegistrationRoutes(services: services)
        let authentication = AuthenticationRoutes(services: services)
        router.post("/api/umfa/registration/options", use: registration.options)
        router.post("/api/umfa/registration/verify", use: registration.verify)
        router.post("/api/umfa/authentication/options", use: authentication.options)
        router.post("/api/umfa/authentication/verify", use: authentication.verify)
        router.post("/api/umfa/unenroll", use: authentication.unenroll)

        router.post("/api/umfa/validate-token", use: ValidateTokenRoute(services: services).handle)
        router.post("/api/umfa/enrollment-tokens", use: EnrollmentTokenRoute(services: services).handle)
        let credentials = CredentialRoutes(services: services)
        router.get("/api/umfa/users/:user_id/credentials", use: credentials.list)
        router.delete("/api/umfa/users/:user_id/credentials/:credential_id", use: credentials.delete)

        let admin = AdminRoutes(services: services)
        router.post("/api/admin/applications", use: admin.create)
        router.get("/api/admin/applications", use: admin.list)
        router.get("/api/admin/applications/:id", use: admin.show)
        router.patch("/api/admin/applications/:id", use: admin.update)
        router.post("/api/admin/applications/:id/api-keys", use: admin.addAPIKey)
        router.get("/api/admin/applications/:id/api-keys", use: admin.listAPIKeys)
        router.delete("/api/admin/applications/:id/api-keys/:key_id", use: admin.deleteAPIKey)
        router.post("/api/admin/signing-keys", use: admin.rotateSigningKey)

        let publicRoutes = PublicRoutes(services: services, metrics: metrics)
        router.get("/.well-known/jwks.json", use: publicRoutes.jwks)
        router.get("/health", use: publicRoutes.health)
        router.get("/metrics", use: publicRoutes.prometheus)
        router.get("/openapi.yaml", use: publicRoutes.openAPI)
        let demoPage = DemoPage(services: services, demoRoutes: demoRoutes)
        router.get("/", use: demoPage.home)
        for name in DemoAssets.files.keys.sorted() {
            router.get("/demo/\(name)") { request, _ in try demoPage.asset(name, request: request) }
        }
        if demoRoutes {
            let demo = DemoRoutes(services: services)
            router.post("/api/demo/validate-token", use: demo.validate)
            router.get("/api/demo/users/:user_id/credentials", use: demo.listCredentials)
            router.delete("/api/demo/users/:user_id/credentials/:credential_id", use: demo.deleteCredential)
        }
    }
}
