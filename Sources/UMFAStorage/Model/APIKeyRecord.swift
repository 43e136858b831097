import Foundation

/// An API key as the admin API lists it: an id and a creation time, never the key.
///
/// The id is the first 16 characters of the key's stored hash (base64url), so it names the
/// key without revealing it and needs no column of its own.
package struct APIKeyRecord: Sendable, Hashable {
    /// The key id.
    package let keyID: String
    /// When the key was created.
    package let createdAt: Date

    /// Creates a record.
    package init(keyID: String, createdAt: Date) {
        self.keyID = keyID
        self.createdAt = createdAt
    }

    /// The key id of a stored hash.
    package static func keyID(forHash hash: [UInt8]) -> String {
        String(StoredValue.text(hash).prefix(16))
    }
}

extension StoreQueries {
    static func apiKeys(applicationID: UUID) -> StoreQuery {
        StoreQuery(
            "SELECT substr(key_hash, 1, 16) AS key_id, created_at FROM api_keys WHERE application_id = ? ORDER BY created_at",
            [.uuid(applicationID)])
    }

    static func deleteAPIKey(applicationID: UUID, keyID: String) -> StoreQuery {
        StoreQuery(
            "DELETE FROM api_keys WHERE application_id = ? AND substr(key_hash, 1, 16) = ? RETURNING created_at",
            [.uuid(applicationID), .text(keyID)])
    }
}

extension SQLStore {
    func apiKeys(applicationID: UUID) async throws -> [APIKeyRecord] {
        try await executor.rows(StoreQueries.apiKeys(applicationID: applicationID)).map {
            APIKeyRecord(keyID: try $0.text("key_id"), createdAt: try $0.date("created_at"))
        }
    }

    func deleteAPIKey(applicationID: UUID, keyID: String) async throws -> Bool {
        try await !executor.rows(StoreQueries.deleteAPIKey(applicationID: applicationID, keyID: keyID)).isEmpty
    }
}
