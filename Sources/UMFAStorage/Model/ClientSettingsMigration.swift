/// Migration 15's SQL: the settings document of each stored OAuth client, built from the
/// columns that held its settings until then, in SQL that SQLite and PostgreSQL both run
/// (`||`, `replace`, `substr`, `CASE`), so no row is read into the server to move it.
enum ClientSettingsMigration {
    /// The statements, in order: escape the text columns in place (they are dropped after),
    /// build the document, drop the columns.
    static var statements: [String] {
        escapes(of: "client_name") + escapes(of: "software_id") + ["UPDATE oauth_clients SET settings = \(document)"]
            + movedColumns.map { "ALTER TABLE oauth_clients DROP COLUMN \($0)" }
    }

    /// The columns whose values move into the document, then dropped.
    static let movedColumns = [
        "client_name", "redirect_uris", "grant_types", "response_types", "auth_method", "scopes",
        "post_logout_redirect_uris", "first_party", "access_token_ttl_seconds", "refresh_token_ttl_seconds",
        "require_par", "dpop_bound", "jwks", "dcr_template", "software_id", "attestation_required",
        "tls_client_auth_subject", "tls_bound",
    ]

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

    /// Statements that rewrite a text column as the inside of a JSON string: `\` and `"`
    /// escaped, and each control character as `\u00XX` (RFC 8259 §7), written into the SQL
    /// literal as it is. One statement each: nesting them all in one expression overflows
    /// SQLite's parser stack.
    private static func escapes(of column: String) -> [String] {
        let pairs =
            [("\\", "\\\\"), ("\"", "\\\"")]
            + (1...0x1F).map { scalar in
                (String(UnicodeScalar(UInt8(scalar))), "\\u00" + (scalar < 0x10 ? "0" : "") + String(scalar, radix: 16))
            }
        return pairs.map { "UPDATE oauth_clients SET \(column) = replace(\(column), '\($0.0)', '\($0.1)')" }
    }

    /// An integer flag as JSON `true` or `false`.
    private static func boolean(_ column: String) -> String {
        "CASE WHEN \(column) <> 0 THEN 'true' ELSE 'false' END"
    }
}
