/// Migration 15's SQL: the settings document of each stored OAuth client, built from the
/// columns that held its settings until then, in SQL that SQLite and PostgreSQL both run
/// (`||`, `replace`, `substr`, `CASE`), so no row is read into the server to move it.
enum ClientSettingsMigration {
    /// The statements, in order: escape the text columns in place (the old table is dropped
    /// after), copy each client into a new table with its document, and put that table in the
    /// old one's place. Few statements: a store opening beside one that migrates waits for all
    /// of them.
    static var statements: [String] {
        escapes(of: ["client_name", "software_id"]) + [
            """
            CREATE TABLE oauth_clients_settings (
                client_id TEXT PRIMARY KEY,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL, secret_hash TEXT, sealed_secret TEXT, registration_token_hash TEXT,
                settings TEXT NOT NULL, settings_version BIGINT NOT NULL DEFAULT 1)
            """,
            """
            INSERT INTO oauth_clients_settings (client_id, application_id, created_at, secret_hash, sealed_secret,
                registration_token_hash, settings)
            SELECT client_id, application_id, created_at, secret_hash, sealed_secret, registration_token_hash,
                \(document)
            FROM oauth_clients
            """,
            "DROP TABLE oauth_clients",
            "ALTER TABLE oauth_clients_settings RENAME TO oauth_clients",
            "CREATE INDEX oauth_clients_by_application ON oauth_clients (application_id)",
        ]
    }

    /// The document: one JSON object with each member the client had (the members are the
    /// wire names of migration 15's date; the value type reading it is ClientMetadata).
    private static var document: String {
        let members = [
            "'\"client_name\":' || \(string("client_name"))",
            "'\"redirect_uris\":' || redirect_uris",
            "'\"grant_types\":' || grant_types",
            "'\"response_types\":' || response_types",
            "'\"token_endpoint_auth_method\":' || \(string("auth_method"))",
            // A JSON list of scope tokens (no `"` nor `\`, RFC 6749 §3.3) becomes one
            // space-separated string.
            "'\"scope\":' || replace(replace(replace(replace(scopes, '[]', '\"\"'), '\",\"', ' '), '[\"', '\"'), '\"]', '\"')",
            "'\"post_logout_redirect_uris\":' || post_logout_redirect_uris",
            "'\"first_party\":' || \(boolean("first_party"))",
            "'\"access_token_ttl_seconds\":' || CAST(access_token_ttl_seconds AS TEXT)",
            "'\"refresh_token_ttl_seconds\":' || CAST(refresh_token_ttl_seconds AS TEXT)",
            "'\"require_pushed_authorization_requests\":' || \(boolean("require_par"))",
            "'\"dpop_bound_access_tokens\":' || \(boolean("dpop_bound"))",
            "'\"dcr_template\":' || \(boolean("dcr_template"))",
            "'\"attestation_required\":' || \(boolean("attestation_required"))",
            "'\"tls_client_certificate_bound_access_tokens\":' || \(boolean("tls_bound"))",
        ]
        // Optional members: the keys as stored, the template's id, and the certificate subject,
        // stored as a one-member JSON object of the same member name (`{"tls_client_auth_san_dns":…}`).
        let optional = [
            "CASE WHEN jwks IS NULL THEN '' ELSE ',\"jwks\":' || jwks END",
            "CASE WHEN software_id IS NULL THEN '' ELSE ',\"software_id\":' || \(string("software_id")) END",
            """
            CASE WHEN tls_client_auth_subject IS NULL THEN '' \
            ELSE ',' || substr(tls_client_auth_subject, 2, length(tls_client_auth_subject) - 2) END
            """,
        ]
        return "'{' || " + members.joined(separator: " || ',' || ") + " || " + optional.joined(separator: " || ")
            + " || '}'"
    }

    /// A text column (escaped by ``escapes(of:)``) as a JSON string.
    private static func string(_ column: String) -> String {
        "'\"' || \(column) || '\"'"
    }

    /// Statements that rewrite text columns as the inside of a JSON string: `\` and `"`
    /// escaped, and each control character as `\u00XX` (RFC 8259 §7), written into the SQL
    /// literal as it is. A few replacements a statement: nesting all 33 in one expression
    /// overflows SQLite's parser stack.
    private static func escapes(of columns: [String]) -> [String] {
        let pairs =
            [("\\", "\\\\"), ("\"", "\\\"")]
            + (1...0x1F).map { scalar in
                (String(UnicodeScalar(UInt8(scalar))), "\\u00" + (scalar < 0x10 ? "0" : "") + String(scalar, radix: 16))
            }
        return stride(from: 0, to: pairs.count, by: 7).map { start in
            let chunk = pairs[start..<min(start + 7, pairs.count)]
            let assignments = columns.map { column in
                let value = chunk.reduce(column) { expression, pair in
                    "replace(\(expression), '\(pair.0)', '\(pair.1)')"
                }
                return "\(column) = \(value)"
            }
            return "UPDATE oauth_clients SET \(assignments.joined(separator: ", "))"
        }
    }

    /// An integer flag as JSON `true` or `false`.
    private static func boolean(_ column: String) -> String {
        "CASE WHEN \(column) <> 0 THEN 'true' ELSE 'false' END"
    }
}
