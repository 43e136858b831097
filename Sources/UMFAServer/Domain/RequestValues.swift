/// The path and query values of a request, decoded by the HTTP edge (``RouteHandlers``), and
/// what it presents to a protected resource: services read values by name and never see HTTP.
struct RequestValues: Sendable {
    /// Path parameters, percent-decoded; a value that is not valid percent-encoded UTF-8 is absent.
    private let pathValues: [String: String]
    /// Query parameters, the first value of each name.
    private let queryValues: [String: String]
    /// The access token, DPoP proofs, method and certificate the request presents.
    let presented: ProtectedResource.Presented
    /// The request's path, without the query (a DPoP proof's `htu`, RFC 9449 §4.3).
    let requestPath: String

    /// Values as the edge decoded them.
    init(
        pathValues: [String: String], queryValues: [String: String] = [:], presented: ProtectedResource.Presented,
        requestPath: String
    ) {
        self.pathValues = pathValues
        self.queryValues = queryValues
        self.presented = presented
        self.requestPath = requestPath
    }

    /// The decoded path parameter `name`.
    func path(_ name: String) -> String? { pathValues[name] }

    /// The query parameter `name`.
    func query(_ name: String) -> String? { queryValues[name] }

    /// The values a credential route works on.
    var credentialTarget: CredentialService.Target {
        .init(applicationID: query("application_id"), userID: path("user_id"), credentialID: path("credential_id"))
    }
}
