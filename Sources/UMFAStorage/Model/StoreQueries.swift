import Foundation
import UMFATokens

/// A statement and its parameters, written once for both engines with `?` placeholders.
struct StoreQuery: Sendable {
    /// A parameter value.
    enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int64)
        case null
    }

    let sql: String
    let values: [Value]

    init(_ sql: String, _ values: [Value] = []) {
        self.sql = sql
        self.values = values
    }
}

extension StoreQuery.Value {
    static func bytes(_ bytes: [UInt8]) -> Self { .text(StoredValue.text(bytes)) }
    static func date(_ date: Date) -> Self { .integer(StoredValue.milliseconds(date)) }
    static func optionalDate(_ date: Date?) -> Self { date.map(Self.date) ?? .null }
    static func uuid(_ id: UUID) -> Self { .text(id.uuidString.lowercased()) }
    static func bool(_ flag: Bool) -> Self { .integer(flag ? 1 : 0) }
}

/// The statements behind ``UMFAStore``, shared by every SQL engine.
enum StoreQueries {
    static func insertApplication(_ app: ApplicationRecord) -> StoreQuery {
        StoreQuery(ApplicationRecord.table.insertSQL, ApplicationRecord.table.insertValues(app))
    }

    static func updateApplication(_ app: ApplicationRecord) -> StoreQuery {
        StoreQuery(ApplicationRecord.table.updateSQL, ApplicationRecord.table.updateValues(app))
    }

    private typealias Column = ApplicationRecord.ColumnName

    private static let applicationByID = "SELECT * FROM applications WHERE \(Column.id) = ?"

    static func application(_ id: UUID) -> StoreQuery {
        StoreQuery(applicationByID, [.uuid(id)])
    }

    static let applications = StoreQuery(
        "SELECT * FROM applications ORDER BY \(Column.createdAt), \(Column.id)")

    private static let applicationsByRPID =
        "SELECT * FROM applications WHERE \(Column.rpID) = ? ORDER BY \(Column.createdAt), \(Column.id)"

    static func applications(rpID: String) -> StoreQuery {
        StoreQuery(applicationsByRPID, [.text(rpID)])
    }

    static func insertAPIKey(hash: [UInt8], applicationID: UUID, createdAt: Date) -> StoreQuery {
        StoreQuery(
            "INSERT INTO api_keys (key_hash, application_id, created_at) VALUES (?, ?, ?)",
            [.bytes(hash), .uuid(applicationID), .date(createdAt)])
    }

    private static let applicationByAPIKey =
        "SELECT * FROM applications WHERE \(Column.id) = (SELECT application_id FROM api_keys WHERE key_hash = ?)"

    static func application(apiKeyHash hash: [UInt8]) -> StoreQuery {
        StoreQuery(
            // A subquery, not a join: SQLite prepared the join again on every new key bound.
            applicationByAPIKey, [.bytes(hash)])
    }

    static func user(applicationID: UUID, userID: String) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM users WHERE application_id = ? AND user_id = ?", [.uuid(applicationID), .text(userID)])
    }

    static func user(applicationID: UUID, userHandle: [UInt8]) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM users WHERE application_id = ? AND user_handle = ?",
            [.uuid(applicationID), .bytes(userHandle)])
    }

    static func insertUser(_ user: UserRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO users (application_id, user_id, user_handle, display_name, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (application_id, user_id) DO NOTHING
            """,
            [
                .uuid(user.applicationID), .text(user.userID), .bytes(user.userHandle), .text(user.displayName),
                .date(user.createdAt),
            ])
    }

    static func credentials(applicationID: UUID, userID: String) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM credentials WHERE application_id = ? AND user_id = ? ORDER BY created_at, credential_id",
            [.uuid(applicationID), .text(userID)])
    }

    /// The owner of the application's first credential whose id sorts at or after `key`:
    /// a stable, index-ordered pick of a real user.
    static func credentialOwner(applicationID: UUID, atOrAfter key: [UInt8]?) -> StoreQuery {
        guard let key else {
            return StoreQuery(
                "SELECT user_id FROM credentials WHERE application_id = ? ORDER BY credential_id LIMIT 1",
                [.uuid(applicationID)])
        }
        return StoreQuery(
            """
            SELECT user_id FROM credentials WHERE application_id = ? AND credential_id >= ?
            ORDER BY credential_id LIMIT 1
            """,
            [.uuid(applicationID), .bytes(key)])
    }

    static func credential(applicationID: UUID, credentialID: [UInt8]) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM credentials WHERE application_id = ? AND credential_id = ?",
            [.uuid(applicationID), .bytes(credentialID)])
    }

    /// A credential and its owner's user handle. A subquery, not a join: SQLite prepares the
    /// join again for each new key bound (measured with scripts/bench.sh), a subquery once.
    static func credentialWithOwnerHandle(applicationID: UUID, credentialID: [UInt8]) -> StoreQuery {
        StoreQuery(
            """
            SELECT *, (SELECT user_handle FROM users WHERE users.application_id = credentials.application_id
                AND users.user_id = credentials.user_id) AS owner_user_handle
            FROM credentials WHERE application_id = ? AND credential_id = ?
            """,
            [.uuid(applicationID), .bytes(credentialID)])
    }

    static let credentialColumns = """
        application_id, credential_id, user_id, public_key, sign_count, aaguid, transports, backup_eligible,
            backup_state, uv_initialized, attestation_format, device_name, created_at, last_used_at, authenticator_name,
            discoverable, prf_enabled, attestation_trusted
        """

    private static func credentialValues(_ credential: StoredCredential) -> [StoreQuery.Value] {
        [
            .uuid(credential.applicationID), .bytes(credential.credentialID), .text(credential.userID),
            .bytes(credential.publicKey), .integer(Int64(credential.signCount)), .bytes(credential.aaguid),
            .text(StoredValue.json(credential.transports)), .bool(credential.backupEligible),
            .bool(credential.backupState), .bool(credential.uvInitialized), .text(credential.attestationFormat),
            credential.deviceName.map { .text($0) } ?? .null, .date(credential.createdAt),
            .optionalDate(credential.lastUsedAt), credential.authenticatorName.map { .text($0) } ?? .null,
            credential.discoverable.map { .bool($0) } ?? .null, credential.prfEnabled.map { .bool($0) } ?? .null,
            .bool(credential.attestationTrusted),
        ]
    }

    static func insertCredential(_ credential: StoredCredential) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO credentials (\(credentialColumns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            credentialValues(credential))
    }

    /// Records a sign-in only while the stored counter is still the one the assertion was
    /// checked against: the compare is in the statement, so of two assertions checked against
    /// one counter value only the first is recorded, on one instance or many.
    static func updateCredentialUse(_ credential: StoredCredential, expectedSignCount: UInt32) -> StoreQuery {
        StoreQuery(
            """
            UPDATE credentials SET sign_count = ?, backup_state = ?, uv_initialized = ?, last_used_at = ?
            WHERE application_id = ? AND credential_id = ? AND sign_count = ?
            RETURNING credential_id
            """,
            [
                .integer(Int64(credential.signCount)), .bool(credential.backupState), .bool(credential.uvInitialized),
                .optionalDate(credential.lastUsedAt), .uuid(credential.applicationID), .bytes(credential.credentialID),
                .integer(Int64(expectedSignCount)),
            ])
    }

    /// Adds a credential only when its user has none yet, in one statement: the `open`
    /// policy's first enrollment, which a concurrent first enrollment must not double.
    static func insertFirstCredential(_ credential: StoredCredential) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO credentials (\(credentialColumns))
            SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
            WHERE NOT EXISTS (SELECT 1 FROM credentials WHERE application_id = ? AND user_id = ?)
            RETURNING credential_id
            """,
            credentialValues(credential) + [.uuid(credential.applicationID), .text(credential.userID)])
    }

    static func deleteCredential(applicationID: UUID, userID: String, credentialID: [UInt8]) -> StoreQuery {
        StoreQuery(
            "DELETE FROM credentials WHERE application_id = ? AND user_id = ? AND credential_id = ? RETURNING credential_id",
            [.uuid(applicationID), .text(userID), .bytes(credentialID)])
    }

    static func insertChallenge(_ challenge: ChallengeRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO challenges (challenge, application_id, user_id, ceremony, user_verification, userpw_time,
                expires_at, allow_credentials, grant_kind, enrollment_token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .bytes(challenge.challenge), .uuid(challenge.applicationID),
                challenge.userID.map { .text($0) } ?? .null, .text(challenge.ceremony.rawValue),
                .text(challenge.userVerification.rawValue), .optionalDate(challenge.userpwTime),
                .date(challenge.expiresAt),
                challenge.allowCredentials.isEmpty
                    ? .null : .text(StoredValue.json(challenge.allowCredentials.map(StoredValue.text))),
                challenge.grant.map { .text($0.rawValue) } ?? .null,
                challenge.enrollmentTokenHash.map { .bytes($0) } ?? .null,
            ])
    }

    static func challenge(_ challenge: [UInt8], applicationID: UUID, ceremony: CeremonyKind) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM challenges WHERE challenge = ? AND application_id = ? AND ceremony = ?",
            [.bytes(challenge), .uuid(applicationID), .text(ceremony.rawValue)])
    }

    static func consumeChallenge(_ challenge: [UInt8], applicationID: UUID, ceremony: CeremonyKind) -> StoreQuery {
        StoreQuery(
            "DELETE FROM challenges WHERE challenge = ? AND application_id = ? AND ceremony = ? RETURNING *",
            [.bytes(challenge), .uuid(applicationID), .text(ceremony.rawValue)])
    }

    static func purgeExpired(before date: Date) -> [StoreQuery] {
        [
            StoreQuery("DELETE FROM challenges WHERE expires_at < ?", [.date(date)]),
            StoreQuery("DELETE FROM enrollment_tokens WHERE expires_at < ?", [.date(date)]),
            StoreQuery("DELETE FROM revoked_access_tokens WHERE expires_at < ?", [.date(date)]),
            StoreQuery("DELETE FROM oauth_grants WHERE expires_at < ?", [.date(date)]),
            StoreQuery(
                "DELETE FROM initial_access_tokens WHERE expires_at < ? OR uses_left <= 0", [.date(date)]),
            StoreQuery("DELETE FROM console_sessions WHERE expires_at < ?", [.date(date)]),
            // A day after they end, so a backend polling late still learns the outcome.
            StoreQuery(
                "DELETE FROM oob_transactions WHERE expires_at < ?", [.date(date.addingTimeInterval(-86_400))]),
        ]
    }

    static func insertEnrollmentToken(_ token: EnrollmentTokenRecord) -> StoreQuery {
        StoreQuery(
            "INSERT INTO enrollment_tokens (token_hash, application_id, user_id, userpw_time, expires_at) VALUES (?, ?, ?, ?, ?)",
            [
                .bytes(token.tokenHash), .uuid(token.applicationID), .text(token.userID),
                .optionalDate(token.userpwTime), .date(token.expiresAt),
            ])
    }

    static func enrollmentToken(hash: [UInt8], applicationID: UUID, userID: String) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM enrollment_tokens WHERE token_hash = ? AND application_id = ? AND user_id = ?",
            [.bytes(hash), .uuid(applicationID), .text(userID)])
    }

    static func consumeEnrollmentToken(hash: [UInt8], applicationID: UUID, userID: String) -> StoreQuery {
        StoreQuery(
            "DELETE FROM enrollment_tokens WHERE token_hash = ? AND application_id = ? AND user_id = ? RETURNING *",
            [.bytes(hash), .uuid(applicationID), .text(userID)])
    }

    static let signingKeys = StoreQuery("SELECT * FROM signing_keys ORDER BY created_at DESC")

    /// Retires every current key but the newest one. Run after each insert, so whatever the
    /// interleaving of instances rotating at once, the last of these statements leaves exactly
    /// one key current, the newest.
    static func retireAllButNewestSigningKey(algorithm: String, at date: Date) -> StoreQuery {
        StoreQuery(
            """
            UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL AND algorithm = ?
                AND kid <> (SELECT kid FROM signing_keys WHERE algorithm = ?
                    ORDER BY created_at DESC, kid DESC LIMIT 1)
            """,
            [.date(date), .text(algorithm), .text(algorithm)])
    }

    static func signingKeys(algorithm: String) -> StoreQuery {
        StoreQuery("SELECT kid FROM signing_keys WHERE algorithm = ?", [.text(algorithm)])
    }

    static func insertSigningKey(_ key: SigningKeyRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO signing_keys (kid, algorithm, public_key, sealed_private_key, created_at, retired_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(key.kid), .text(key.algorithm), .bytes(key.publicKey), .bytes(key.sealedPrivateKey),
                .date(key.createdAt), .optionalDate(key.retiredAt),
            ])
    }

    static func setting(_ name: String) -> StoreQuery {
        StoreQuery("SELECT value FROM settings WHERE name = ?", [.text(name)])
    }

    static func insertSetting(_ name: String, value: String) -> StoreQuery {
        StoreQuery(
            "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            [.text(name), .text(value)])
    }

    static func deleteSetting(_ name: String) -> StoreQuery {
        StoreQuery("DELETE FROM settings WHERE name = ?", [.text(name)])
    }
}
