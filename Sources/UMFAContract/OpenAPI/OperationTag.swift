/// The groups `openapi.yaml` sorts operations into (OpenAPI 3.1 §4.8.22), by where their path
/// lies; docs/reference/http-api.md lists the operations under the same groups.
enum OperationTag: String, CaseIterable, Sendable {
    case umfa = "UMFA API"
    case openIDConnect = "OpenID Connect (per issuer)"
    case admin = "Admin"
    case `public` = "Public"

    /// The group of an operation.
    init(_ operation: APIOperation) {
        let path = operation.path
        if path.contains("/oidc/") || path.hasPrefix("/.well-known/o") {
            self = .openIDConnect
        } else if path.hasPrefix("/api/admin/") {
            self = .admin
        } else if path.hasPrefix("/api/umfa/") {
            self = .umfa
        } else {
            self = .public
        }
    }

    /// What the group holds.
    var description: String {
        switch self {
        case .umfa: "Device-facing ceremonies, the application backend's routes and self-service (docs/contract.md §2)"
        case .openIDConnect:
            "Each application's issuer: OAuth 2.0 and OpenID Connect endpoints, hosted pages, the API-driven flow"
        case .admin: "The admin API (docs/admin-api.md): applications, keys, clients, users, audit log"
        case .public: "Health, metrics, this document, the demo page, the admin console and well-known documents"
        }
    }
}
