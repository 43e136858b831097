import UMFAStorage

extension AdminService {
    /// Checks `introspection_clients` (docs/oidc-provider.md, "Introspection"): at most 50
    /// distinct client ids, each a confidential client of this application that an admin made.
    /// A client that registered itself is never one, since whoever held an initial access token
    /// or a template's credentials could then read every token of the application (RFC 7662 §4).
    func checkIntrospectionClients(_ application: ApplicationRecord) async throws {
        let ids = application.introspectionClients
        guard ids.count <= 50, Set(ids).count == ids.count else {
            throw ServiceError.invalid(
                "introspection_clients must be at most 50 distinct client ids", field: "introspection_clients")
        }
        for id in ids {
            guard
                let client = try await store.oauthClient(applicationID: application.id, clientID: id),
                client.authenticationMethod.isConfidential, !client.isSelfRegistered
            else {
                throw ServiceError.invalid(
                    "introspection_clients must name confidential clients of this application that an admin made",
                    field: "introspection_clients")
            }
        }
    }
}
