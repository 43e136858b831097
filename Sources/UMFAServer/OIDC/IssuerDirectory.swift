import Foundation
import UMFAStorage

/// What ``IssuerDirectory`` reads: an application, or an application and the OAuth client a
/// request names in one statement (the OAuth endpoints need both on every request).
protocol IssuerRecords: Sendable {
    /// The application; `nil` when unknown.
    func application(id: UUID) async throws -> ApplicationRecord?
    /// The application and, when it has one by that id, its client; `nil` when the application
    /// is unknown.
    func application(id: UUID, withOAuthClient clientID: String) async throws
        -> (application: ApplicationRecord, client: OAuthClientRecord?)?
}

/// The store as ``IssuerRecords``.
struct StoreIssuerRecords: IssuerRecords {
    let store: any ApplicationStore & OAuthClientStore

    func application(id: UUID) async throws -> ApplicationRecord? { try await store.application(id: id) }

    func application(id: UUID, withOAuthClient clientID: String) async throws
        -> (application: ApplicationRecord, client: OAuthClientRecord?)?
    {
        try await store.application(id: id, withOAuthClient: clientID)
    }
}

/// Finds the issuer of a path's `{application_id}` (docs/contract.md §5): an unknown one is 404.
/// With the client a request names, the client is read in the same statement, and
/// ``OAuthIssuer/client(_:store:)`` answers it without another.
struct IssuerDirectory: Sendable {
    let records: any IssuerRecords
    /// The server's public URL, the base of every issuer URL.
    let publicURL: String

    /// The issuer of `text`, with `clientID`'s record when the request names a client.
    func issuer(_ text: String?, namingClient clientID: String? = nil) async throws -> OAuthIssuer {
        guard let text, let id = UUID(uuidString: text) else { throw ServiceError.notFound("Unknown issuer") }
        guard let clientID else {
            guard let application = try await records.application(id: id) else {
                throw ServiceError.notFound("Unknown issuer")
            }
            return OAuthIssuer(application: application, publicURL: publicURL)
        }
        guard let found = try await records.application(id: id, withOAuthClient: clientID) else {
            throw ServiceError.notFound("Unknown issuer")
        }
        return OAuthIssuer(application: found.application, publicURL: publicURL, namedClient: (clientID, found.client))
    }
}
