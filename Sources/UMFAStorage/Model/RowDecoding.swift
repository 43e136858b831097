import Foundation
import UMFATokens

/// A result row, read by column name; each engine adapts its own row type to it so the
/// mapping from rows to records is written once.
protocol StoredRow {
    func optionalText(_ column: String) -> String?
    func optionalInteger(_ column: String) -> Int64?
}

/// The columns of `base` whose names start with `prefix`, read by their names without it: one
/// table's columns beside another's in a joined row.
struct PrefixedRow: StoredRow {
    let base: any StoredRow
    let prefix: String

    func optionalText(_ column: String) -> String? { base.optionalText(prefix + column) }
    func optionalInteger(_ column: String) -> Int64? { base.optionalInteger(prefix + column) }
}

extension StoredRow {
    func text(_ column: String) throws -> String {
        guard let value = optionalText(column) else { throw StoreError(.corrupt, "column \(column) is empty") }
        return value
    }

    func integer(_ column: String) throws -> Int64 {
        guard let value = optionalInteger(column) else { throw StoreError(.corrupt, "column \(column) is empty") }
        return value
    }

    func uuid(_ column: String) throws -> UUID {
        guard let value = UUID(uuidString: try text(column)) else {
            throw StoreError(.corrupt, "column \(column) is not a UUID")
        }
        return value
    }

    func bytes(_ column: String) throws -> [UInt8] { try StoredValue.bytes(try text(column)) }
    func date(_ column: String) throws -> Date { StoredValue.date(try integer(column)) }
    func optionalDate(_ column: String) -> Date? { optionalInteger(column).map(StoredValue.date) }
    func bool(_ column: String) throws -> Bool { try integer(column) != 0 }
}

extension UserRecord {
    init(row: some StoredRow) throws {
        self.init(
            applicationID: try row.uuid("application_id"), userID: try row.text("user_id"),
            userHandle: try row.bytes("user_handle"), displayName: try row.text("display_name"),
            createdAt: try row.date("created_at"))
    }
}

extension StoredCredential {
    init(row: some StoredRow) throws {
        guard let signCount = UInt32(exactly: try row.integer("sign_count")) else {
            throw StoreError(.corrupt, "sign count out of range")
        }
        self.init(
            applicationID: try row.uuid("application_id"), userID: try row.text("user_id"),
            credentialID: try row.bytes("credential_id"), publicKey: try row.bytes("public_key"),
            signCount: signCount, aaguid: try row.bytes("aaguid"),
            transports: try StoredValue.list(try row.text("transports")),
            backupEligible: try row.bool("backup_eligible"), backupState: try row.bool("backup_state"),
            uvInitialized: try row.bool("uv_initialized"), attestationFormat: try row.text("attestation_format"),
            deviceName: row.optionalText("device_name"), createdAt: try row.date("created_at"),
            lastUsedAt: row.optionalDate("last_used_at"), authenticatorName: row.optionalText("authenticator_name"))
        discoverable = row.optionalInteger("discoverable").map { $0 != 0 }
        prfEnabled = row.optionalInteger("prf_enabled").map { $0 != 0 }
        attestationTrusted = row.optionalInteger("attestation_trusted").map { $0 != 0 } ?? false
    }
}

extension ChallengeRecord {
    init(row: some StoredRow) throws {
        guard let ceremony = CeremonyKind(rawValue: try row.text("ceremony")) else {
            throw StoreError(.corrupt, "unknown ceremony")
        }
        self.init(
            challenge: try row.bytes("challenge"), applicationID: try row.uuid("application_id"),
            userID: row.optionalText("user_id"), ceremony: ceremony,
            userVerification: try row.setting("user_verification"), userpwTime: row.optionalDate("userpw_time"),
            expiresAt: try row.date("expires_at"),
            allowCredentials: try row.optionalText("allow_credentials").map(StoredValue.list)?.map(StoredValue.bytes)
                ?? [],
            grant: try row.optionalText("grant_kind").map {
                guard let kind = RegistrationGrantKind(rawValue: $0) else {
                    throw StoreError(.corrupt, "unknown registration grant")
                }
                return kind
            },
            enrollmentTokenHash: try row.optionalText("enrollment_token_hash").map(StoredValue.bytes))
    }
}

extension EnrollmentTokenRecord {
    init(row: some StoredRow) throws {
        self.init(
            tokenHash: try row.bytes("token_hash"), applicationID: try row.uuid("application_id"),
            userID: try row.text("user_id"), userpwTime: row.optionalDate("userpw_time"),
            expiresAt: try row.date("expires_at"))
    }
}

extension SigningKeyRecord {
    init(row: some StoredRow) throws {
        self.init(
            kid: try row.text("kid"), algorithm: try row.text("algorithm"), publicKey: try row.bytes("public_key"),
            sealedPrivateKey: try row.bytes("sealed_private_key"), createdAt: try row.date("created_at"),
            retiredAt: row.optionalDate("retired_at"))
    }
}

extension StoredRow {
    /// A setting stored as its raw value; any other text is a damaged row.
    func setting<Setting: RawRepresentable<String>>(_ column: String) throws -> Setting {
        try Setting.parse(try text(column))
    }
}

extension RawRepresentable<String> {
    /// The stored raw value as a setting; any other text is a damaged row.
    static func parse(_ text: String) throws -> Self {
        guard let value = Self(rawValue: text) else {
            throw StoreError(.corrupt, "a stored setting has an unknown value")
        }
        return value
    }
}
