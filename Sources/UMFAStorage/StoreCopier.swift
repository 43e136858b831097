import Foundation
import Logging

/// Moves an installation from one store to another (SQLite to PostgreSQL): every table,
/// row by row, in foreign-key order. Rows already in the target are left as they are, so a
/// copy that was interrupted can simply be run again.
package enum StoreCopier {
    /// The tables and their columns, in an order that satisfies the foreign keys.
    static let tables: [(name: String, columns: [String])] = [
        ("settings", ["name", "value"]),
        (
            "applications",
            [
                "id", "name", "rp_id", "rp_name", "origins", "related_origins", "enrollment_policy",
                "user_verification", "attestation",
                "token_ttl_seconds", "created_at", "attestation_policy", "aaguid_allow", "aaguid_deny", "signup",
                "token_signing_alg", "apple_app_ids", "android_apps", "dpop_nonce", "webhook_url",
                "sealed_webhook_secret", "allowed_scopes", "resource_indicators", "hints", "attestation_formats",
                "credential_protection_policy", "enforce_credential_protection_policy", "introspection_clients",
            ]
        ),
        ("api_keys", ["key_hash", "application_id", "created_at"]),
        ("users", ["application_id", "user_id", "user_handle", "display_name", "created_at"]),
        (
            "credentials",
            [
                "application_id", "credential_id", "user_id", "public_key", "sign_count", "aaguid", "transports",
                "backup_eligible", "backup_state", "uv_initialized", "attestation_format", "device_name", "created_at",
                "last_used_at", "authenticator_name", "discoverable", "prf_enabled",
            ]
        ),
        ("signing_keys", ["kid", "algorithm", "public_key", "sealed_private_key", "created_at", "retired_at"]),
        ("enrollment_tokens", ["token_hash", "application_id", "user_id", "userpw_time", "expires_at"]),
        (
            "challenges",
            [
                "challenge", "application_id", "user_id", "ceremony", "user_verification", "userpw_time", "expires_at",
                "allow_credentials", "grant_kind", "enrollment_token_hash",
            ]
        ),
        (
            "oauth_clients",
            [
                "client_id", "application_id", "client_name", "secret_hash", "redirect_uris", "grant_types",
                "response_types", "auth_method", "scopes", "post_logout_redirect_uris", "first_party",
                "access_token_ttl_seconds", "refresh_token_ttl_seconds", "created_at", "require_par", "dpop_bound",
                "jwks", "sealed_secret", "dcr_template", "software_id", "registration_token_hash",
                "attestation_required", "tls_client_auth_subject", "tls_bound",
            ]
        ),
        (
            "initial_access_tokens",
            ["token_hash", "application_id", "uses_left", "expires_at", "created_at", "scopes"]
        ),
        ("recovery_codes", ["application_id", "user_id", "code_hashes", "updated_at"]),
        ("revoked_access_tokens", ["jti", "application_id", "expires_at"]),
        (
            "oauth_grants",
            [
                "kind", "handle_hash", "application_id", "family", "subject", "payload", "created_at", "expires_at",
                "consumed_at", "credential_id",
            ]
        ),
        (
            "user_profiles",
            [
                "application_id", "user_id", "email", "email_key", "email_verified", "given_name", "family_name",
                "phone_number", "phone_number_verified", "updated_at",
            ]
        ),
        (
            "oob_transactions",
            [
                "transaction_id", "application_id", "operation", "user_id", "status", "status_token_hash",
                "dispatch_token_hash", "redeemed_at", "message", "approval_nonce", "matching_number", "challenge",
                "credential_id", "sealed_token", "created_at", "updated_at", "expires_at", "username",
                "sealed_dispatch_token",
            ]
        ),
        (
            "device_keys",
            ["application_id", "credential_id", "user_id", "name", "push_token", "public_jwk", "created_at"]
        ),
        (
            "webhook_outbox",
            ["id", "application_id", "body", "attempts", "next_attempt_at", "created_at", "last_error"]
        ),
        (
            "console_credentials",
            [
                "credential_id", "public_key", "sign_count", "user_handle", "backup_eligible", "name", "created_at",
                "last_used_at", "token_epoch",
            ]
        ),
        (
            "audit_events",
            [
                "id", "occurred_at", "application_id", "action", "actor", "user_id", "credential_id",
                "client_address", "trace_id", "details",
            ]
        ),
    ]

    /// Tables left behind on purpose: abuse counters describe recent callers of the old
    /// deployment, not its data; console sessions end with it (operators sign in again).
    static let transientTables: Set<String> = ["abuse_counters", "schema_migrations", "console_sessions"]

    /// Integer columns; every other column is text.
    static let integerColumns: Set<String> = [
        "token_ttl_seconds", "created_at", "sign_count", "backup_eligible", "backup_state", "uv_initialized",
        "last_used_at", "retired_at", "userpw_time", "expires_at", "first_party", "access_token_ttl_seconds",
        "refresh_token_ttl_seconds", "require_par", "dpop_bound", "occurred_at", "consumed_at", "updated_at",
        "uses_left", "dcr_template", "attestation_required", "email_verified", "phone_number_verified",
        "redeemed_at", "attempts", "next_attempt_at", "enforce_credential_protection_policy", "discoverable",
        "prf_enabled", "tls_bound",
    ]

    /// Copies everything from `source` to `target` (both migrated first).
    /// - Returns: the number of rows read from each table.
    package static func copy(from source: any UMFAStore, to target: any UMFAStore) async throws -> [String: Int] {
        guard let source = source as? SQLStore, let target = target as? SQLStore else {
            throw StoreError(.unavailable, "only UMFA's SQL stores can be copied")
        }
        try await source.migrate()
        try await target.migrate()
        var counts: [String: Int] = [:]
        for table in tables {
            let rows = try await source.executor.rows(
                StoreQuery("SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)"))
            let placeholders = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
            let insert =
                "INSERT INTO \(table.name) (\(table.columns.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT DO NOTHING"
            for row in rows {
                let values: [StoreQuery.Value] = table.columns.map { column in
                    if integerColumns.contains(column) {
                        return row.optionalInteger(column).map { .integer($0) } ?? .null
                    }
                    return row.optionalText(column).map { .text($0) } ?? .null
                }
                _ = try await target.executor.rows(StoreQuery(insert, values))
            }
            counts[table.name] = rows.count
        }
        return counts
    }

    /// Opens a store from a URL: `sqlite:///path/file.sqlite` or `postgres://…`.
    package static func open(url: String, logger: Logger) async throws -> any UMFAStore {
        if url.hasPrefix("sqlite://") {
            return try await SQLiteStore.open(path: String(url.dropFirst("sqlite://".count)), logger: logger)
        }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return try await PostgresStore.open(url: url, logger: logger)
        }
        throw StoreError(.unavailable, "a database URL is sqlite:///path/file.sqlite or postgres://user:pass@host/db")
    }
}
