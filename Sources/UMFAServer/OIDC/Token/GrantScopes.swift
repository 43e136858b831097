import UMFAStorage

/// The scope and audience rules every grant shares.
enum GrantScopes {
    /// The scopes asked for, each one of `allowed`; none asked means all of `allowed`
    /// (RFC 6749 §3.3, `invalid_scope` otherwise).
    static func granted(_ asked: String?, allowed: [String]) throws -> [String] {
        guard let asked else { return allowed }
        let scopes: [String]
        do {
            scopes = try OAuthClientSettings.scopes(asked)
        } catch {
            throw OAuthError(code: .invalidScope, "scope must be space-separated scope tokens")
        }
        guard let refused = scopes.first(where: { !allowed.contains($0) }) else { return scopes }
        throw OAuthError(code: .invalidScope, "The client may not ask for the scope \(refused)")
    }

    /// The audience a `resource` parameter asks for (RFC 8707 §2): one of the application's
    /// registered resource indicators, byte for byte, else `invalid_target`; none asked means the
    /// issuer itself.
    static func audience(_ resource: String?, application: ApplicationRecord) throws -> String? {
        guard let resource else { return nil }
        guard application.resourceIndicators.contains(where: { $0.utf8.elementsEqual(resource.utf8) }) else {
            throw OAuthError(
                code: .invalidTarget, "resource must be one of the resource indicators registered for this application")
        }
        return resource
    }
}
