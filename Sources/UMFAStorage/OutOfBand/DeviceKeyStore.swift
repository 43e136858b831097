import Foundation

/// A device key (docs/contract.md §7): the P-256 public key a phone registered with an out-of-band
/// enrollment, which signs its device proofs. One per credential; it goes with the credential.
package struct DeviceKeyRecord: Sendable, Equatable {
    /// The application.
    package var applicationID: UUID
    /// The credential the device registered the key with (a device proof's `sub`).
    package var credentialID: [UInt8]
    /// The credential's user.
    package var userID: String
    /// The device's name, as it gave it.
    package var name: String?
    /// The push-service token a dispatcher may use.
    package var pushToken: String?
    /// The public key as a JWK (JSON text).
    package var publicJWK: String
    /// When it was registered.
    package var createdAt: Date

    /// Creates a record.
    package init(
        applicationID: UUID, credentialID: [UInt8], userID: String, name: String?, pushToken: String?,
        publicJWK: String, createdAt: Date
    ) {
        self.applicationID = applicationID
        self.credentialID = credentialID
        self.userID = userID
        self.name = name
        self.pushToken = pushToken
        self.publicJWK = publicJWK
        self.createdAt = createdAt
    }
}

/// Device keys, by credential.
package protocol DeviceKeyStore: Sendable {
    /// Adds (or replaces) the device key of a credential.
    func upsertDeviceKey(_ key: DeviceKeyRecord) async throws
    /// The device key of a credential.
    func deviceKey(applicationID: UUID, credentialID: [UInt8]) async throws -> DeviceKeyRecord?
    /// A user's device keys, oldest first.
    func deviceKeys(applicationID: UUID, userID: String) async throws -> [DeviceKeyRecord]
}

extension StoreQueries {
    static func upsertDeviceKey(_ key: DeviceKeyRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO device_keys (application_id, credential_id, user_id, name, push_token, public_jwk, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (application_id, credential_id) DO UPDATE SET name = excluded.name,
                push_token = excluded.push_token, public_jwk = excluded.public_jwk, created_at = excluded.created_at
            """,
            [
                .uuid(key.applicationID), .bytes(key.credentialID), .text(key.userID),
                key.name.map { .text($0) } ?? .null, key.pushToken.map { .text($0) } ?? .null, .text(key.publicJWK),
                .date(key.createdAt),
            ])
    }

    static func deviceKey(applicationID: UUID, credentialID: [UInt8]) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM device_keys WHERE application_id = ? AND credential_id = ?",
            [.uuid(applicationID), .bytes(credentialID)])
    }
}

extension SQLStore {
    func upsertDeviceKey(_ key: DeviceKeyRecord) async throws {
        _ = try await executor.rows(StoreQueries.upsertDeviceKey(key))
    }

    func deviceKey(applicationID: UUID, credentialID: [UInt8]) async throws -> DeviceKeyRecord? {
        try await executor.rows(StoreQueries.deviceKey(applicationID: applicationID, credentialID: credentialID))
            .first.map(DeviceKeyRecord.init(row:))
    }

    func deviceKeys(applicationID: UUID, userID: String) async throws -> [DeviceKeyRecord] {
        try await executor.rows(
            StoreQuery(
                "SELECT * FROM device_keys WHERE application_id = ? AND user_id = ? ORDER BY created_at, credential_id",
                [.uuid(applicationID), .text(userID)])
        ).map(DeviceKeyRecord.init(row:))
    }
}

extension DeviceKeyRecord {
    init(row: any StoredRow) throws {
        self.init(
            applicationID: try row.uuid("application_id"), credentialID: try row.bytes("credential_id"),
            userID: try row.text("user_id"), name: row.optionalText("name"), pushToken: row.optionalText("push_token"),
            publicJWK: try row.text("public_jwk"), createdAt: try row.date("created_at"))
    }
}
