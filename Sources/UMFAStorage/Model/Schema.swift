/// The schema, in SQL that SQLite and PostgreSQL both accept, as numbered migrations.
enum Schema {
    /// Each entry upgrades the schema from the previous version; never edit a released one. The
    /// written migrations, each with the `ALTER TABLE` statements of the declared columns its
    /// version adds (``StoredColumn/added``): from version ``firstDeclaredVersion`` on, a new
    /// application column is one entry of ``ApplicationRecord/table`` and nothing here.
    static let migrations = merging(written, adding: [ApplicationRecord.table.addedColumns])

    /// The first version whose new application columns follow from their declaration; the
    /// written migrations made the earlier ones.
    static let firstDeclaredVersion = 16

    /// `written`, each version followed by the statements `added` holds for it; versions past
    /// the written ones hold only those.
    static func merging(_ written: [[String]], adding added: [[Int: [String]]]) -> [[String]] {
        let last = max(written.count, added.flatMap(\.keys).max() ?? 0)
        return (0..<last).map { index in
            (index < written.count ? written[index] : []) + added.flatMap { $0[index + 1] ?? [] }
        }
    }

    /// The migrations written by hand, versions 1 to 20.
    private static let written: [[String]] = [
        [
            """
            CREATE TABLE applications (
                id TEXT PRIMARY KEY, name TEXT NOT NULL, rp_id TEXT NOT NULL, rp_name TEXT NOT NULL,
                origins TEXT NOT NULL, enrollment_policy TEXT NOT NULL, user_verification TEXT NOT NULL,
                attestation TEXT NOT NULL, token_ttl_seconds BIGINT NOT NULL, created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE api_keys (
                key_hash TEXT PRIMARY KEY,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE users (
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                user_id TEXT NOT NULL, user_handle TEXT NOT NULL, display_name TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (application_id, user_id), UNIQUE (application_id, user_handle))
            """,
            """
            CREATE TABLE credentials (
                application_id TEXT NOT NULL, credential_id TEXT NOT NULL, user_id TEXT NOT NULL,
                public_key TEXT NOT NULL, sign_count BIGINT NOT NULL, aaguid TEXT NOT NULL,
                transports TEXT NOT NULL, backup_eligible INTEGER NOT NULL, backup_state INTEGER NOT NULL,
                uv_initialized INTEGER NOT NULL, attestation_format TEXT NOT NULL, device_name TEXT,
                created_at BIGINT NOT NULL, last_used_at BIGINT,
                PRIMARY KEY (application_id, credential_id),
                FOREIGN KEY (application_id, user_id) REFERENCES users(application_id, user_id) ON DELETE CASCADE)
            """,
            "CREATE INDEX credentials_by_user ON credentials (application_id, user_id)",
            """
            CREATE TABLE challenges (
                challenge TEXT PRIMARY KEY, application_id TEXT NOT NULL, user_id TEXT,
                ceremony TEXT NOT NULL, user_verification TEXT NOT NULL, userpw_time BIGINT,
                expires_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE enrollment_tokens (
                token_hash TEXT PRIMARY KEY, application_id TEXT NOT NULL, user_id TEXT NOT NULL,
                userpw_time BIGINT, expires_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE signing_keys (
                kid TEXT PRIMARY KEY, algorithm TEXT NOT NULL, public_key TEXT NOT NULL,
                sealed_private_key TEXT NOT NULL, created_at BIGINT NOT NULL, retired_at BIGINT)
            """,
            "CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
        ],
        [
            // 2: which attestations an application accepts, and the authenticator's name from metadata.
            "ALTER TABLE applications ADD COLUMN attestation_policy TEXT NOT NULL DEFAULT 'any'",
            "ALTER TABLE applications ADD COLUMN aaguid_allow TEXT",
            "ALTER TABLE applications ADD COLUMN aaguid_deny TEXT NOT NULL DEFAULT '[]'",
            "ALTER TABLE credentials ADD COLUMN authenticator_name TEXT",
        ],
        [
            // 3: what a challenge was issued with, checked again when it is answered
            // (allowCredentials for §7.2 step 5; the registration's grant and its enrollment token).
            "ALTER TABLE challenges ADD COLUMN allow_credentials TEXT",
            "ALTER TABLE challenges ADD COLUMN grant_kind TEXT",
            "ALTER TABLE challenges ADD COLUMN enrollment_token_hash TEXT",
        ],
        [
            // 4: abuse counters every instance on the database shares (docs/contract.md §4).
            """
            CREATE TABLE abuse_counters (
                counter TEXT NOT NULL, counter_key TEXT NOT NULL, failures BIGINT NOT NULL,
                window_start BIGINT NOT NULL, blocked_until BIGINT, strikes BIGINT NOT NULL,
                last_seen BIGINT NOT NULL, PRIMARY KEY (counter, counter_key))
            """,
            "CREATE INDEX abuse_counters_by_last_seen ON abuse_counters (last_seen)",
        ],
        [
            // 5: OAuth clients of each application's OpenID Connect provider (docs/contract.md §5), and
            // access tokens revoked before they expire.
            """
            CREATE TABLE oauth_clients (
                client_id TEXT PRIMARY KEY,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                client_name TEXT NOT NULL, secret_hash TEXT, redirect_uris TEXT NOT NULL, grant_types TEXT NOT NULL,
                response_types TEXT NOT NULL, auth_method TEXT NOT NULL, scopes TEXT NOT NULL,
                post_logout_redirect_uris TEXT NOT NULL, first_party INTEGER NOT NULL,
                access_token_ttl_seconds BIGINT NOT NULL, refresh_token_ttl_seconds BIGINT NOT NULL,
                created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX oauth_clients_by_application ON oauth_clients (application_id)",
            """
            CREATE TABLE revoked_access_tokens (
                jti TEXT PRIMARY KEY, application_id TEXT NOT NULL, expires_at BIGINT NOT NULL)
            """,
        ],
        [
            // 6: the authorization code flow (docs/contract.md §5): interactions, codes, refresh tokens,
            // SSO sessions and consents by the hash of their handle; users' profiles; `signup`.
            """
            CREATE TABLE oauth_grants (
                kind TEXT NOT NULL, handle_hash TEXT NOT NULL,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                family TEXT, subject TEXT, payload TEXT NOT NULL, created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL, consumed_at BIGINT, PRIMARY KEY (kind, handle_hash))
            """,
            "CREATE INDEX oauth_grants_by_family ON oauth_grants (application_id, family)",
            "CREATE INDEX oauth_grants_by_expiry ON oauth_grants (expires_at)",
            """
            CREATE TABLE user_profiles (
                application_id TEXT NOT NULL, user_id TEXT NOT NULL, email TEXT, email_key TEXT,
                email_verified INTEGER NOT NULL, given_name TEXT, family_name TEXT, phone_number TEXT,
                phone_number_verified INTEGER NOT NULL, updated_at BIGINT NOT NULL,
                PRIMARY KEY (application_id, user_id),
                FOREIGN KEY (application_id, user_id) REFERENCES users(application_id, user_id) ON DELETE CASCADE)
            """,
            "CREATE UNIQUE INDEX user_profiles_by_email ON user_profiles (application_id, email_key)",
            "ALTER TABLE applications ADD COLUMN signup TEXT NOT NULL DEFAULT 'enabled'",
            "ALTER TABLE oauth_clients ADD COLUMN require_par INTEGER NOT NULL DEFAULT 0",
        ],
        [
            // 7: token signing per application (RS256, ES256 or EdDSA keys side by side in
            // signing_keys, one current per algorithm); the native apps an application publishes
            // in apple-app-site-association and assetlinks.json.
            "ALTER TABLE applications ADD COLUMN token_signing_alg TEXT NOT NULL DEFAULT 'RS256'",
            "ALTER TABLE applications ADD COLUMN apple_app_ids TEXT NOT NULL DEFAULT '[]'",
            "ALTER TABLE applications ADD COLUMN android_apps TEXT NOT NULL DEFAULT '[]'",
            // DPoP (RFC 9449): server nonces per application; clients whose tokens must be bound.
            "ALTER TABLE applications ADD COLUMN dpop_nonce TEXT NOT NULL DEFAULT 'off'",
            "ALTER TABLE oauth_clients ADD COLUMN dpop_bound INTEGER NOT NULL DEFAULT 0",
            // private_key_jwt (RFC 7523): the client's public keys.
            "ALTER TABLE oauth_clients ADD COLUMN jwks TEXT",
            // client_secret_jwt: the secret sealed with the master key.
            "ALTER TABLE oauth_clients ADD COLUMN sealed_secret TEXT",
        ],
        [
            // 8: dynamic client registration (RFC 7591, RFC 7592): the initial access tokens the
            // admin issues, by hash, with the uses they have left; templates, the template a
            // client was registered from, and the hash of its registration access token.
            """
            CREATE TABLE initial_access_tokens (
                token_hash TEXT PRIMARY KEY,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                uses_left BIGINT NOT NULL, expires_at BIGINT NOT NULL, created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX initial_access_tokens_by_expiry ON initial_access_tokens (expires_at)",
            "ALTER TABLE oauth_clients ADD COLUMN dcr_template INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE oauth_clients ADD COLUMN software_id TEXT",
            "ALTER TABLE oauth_clients ADD COLUMN registration_token_hash TEXT",
            // Client attestation (docs/contract.md §6): public clients that must attest for an API-flow token.
            "ALTER TABLE oauth_clients ADD COLUMN attestation_required INTEGER NOT NULL DEFAULT 0",
            // Self-service (docs/contract.md §8): each user's unused recovery codes, one set of hashes.
            """
            CREATE TABLE recovery_codes (
                application_id TEXT NOT NULL, user_id TEXT NOT NULL, code_hashes TEXT NOT NULL,
                updated_at BIGINT NOT NULL, PRIMARY KEY (application_id, user_id),
                FOREIGN KEY (application_id, user_id) REFERENCES users(application_id, user_id) ON DELETE CASCADE)
            """,
        ],
        [
            // 9: the audit log (docs/contract.md §8). No foreign keys: the record of what happened outlives
            // the application, user or credential it names, until the retention period ends.
            """
            CREATE TABLE audit_events (
                id TEXT PRIMARY KEY, occurred_at BIGINT NOT NULL, application_id TEXT, action TEXT NOT NULL,
                actor TEXT NOT NULL, user_id TEXT, credential_id TEXT, client_address TEXT NOT NULL,
                trace_id TEXT NOT NULL, details TEXT NOT NULL)
            """,
            "CREATE INDEX audit_events_by_time ON audit_events (occurred_at, id)",
            "CREATE INDEX audit_events_by_application ON audit_events (application_id, occurred_at, id)",
            // The admin console (docs/contract.md §8): operators' passkeys for the server's own RP ID, and
            // their sessions by the SHA-256 of the cookie.
            """
            CREATE TABLE console_credentials (
                credential_id TEXT PRIMARY KEY, public_key TEXT NOT NULL, sign_count BIGINT NOT NULL,
                user_handle TEXT NOT NULL, backup_eligible INTEGER NOT NULL, name TEXT NOT NULL, created_at BIGINT NOT NULL, last_used_at BIGINT)
            """,
            """
            CREATE TABLE console_sessions (
                session_hash TEXT PRIMARY KEY, credential_id TEXT NOT NULL,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX users_by_creation ON users (application_id, created_at)",
            // Out-of-band enrollment and approval (docs/contract.md §7): transactions started by a
            // backend and finished on a phone, their tokens by SHA-256.
            """
            CREATE TABLE oob_transactions (
                transaction_id TEXT PRIMARY KEY,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                operation TEXT NOT NULL, user_id TEXT, status TEXT NOT NULL, status_token_hash TEXT NOT NULL UNIQUE,
                dispatch_token_hash TEXT NOT NULL UNIQUE, redeemed_at BIGINT, message TEXT, approval_nonce TEXT,
                matching_number TEXT, challenge TEXT, credential_id TEXT, sealed_token TEXT,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX oob_transactions_by_expiry ON oob_transactions (expires_at)",
        ],
        [
            // 10: the rest of docs/contract.md §7. The username the enroll request named; the dispatch
            // token sealed with the master key (beside its hash), so a device proven by its
            // device key can fetch a pending approval's link again.
            "ALTER TABLE oob_transactions ADD COLUMN username TEXT",
            "ALTER TABLE oob_transactions ADD COLUMN sealed_dispatch_token TEXT",
            "CREATE INDEX oob_transactions_pending ON oob_transactions (application_id, user_id, status)",
            // Device keys (P-256, a public JWK) registered with an out-of-band enrollment; one per
            // credential, gone with it.
            """
            CREATE TABLE device_keys (
                application_id TEXT NOT NULL, credential_id TEXT NOT NULL, user_id TEXT NOT NULL,
                name TEXT, push_token TEXT, public_jwk TEXT NOT NULL, created_at BIGINT NOT NULL,
                PRIMARY KEY (application_id, credential_id),
                FOREIGN KEY (application_id, credential_id)
                    REFERENCES credentials(application_id, credential_id) ON DELETE CASCADE)
            """,
            // Webhooks: the application's URL and its secret sealed with the master key; every
            // event waits in the outbox until its receiver answers 2xx, so a restart loses none.
            "ALTER TABLE applications ADD COLUMN webhook_url TEXT",
            "ALTER TABLE applications ADD COLUMN sealed_webhook_secret TEXT",
            """
            CREATE TABLE webhook_outbox (
                id TEXT PRIMARY KEY,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                body TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_at BIGINT NOT NULL,
                created_at BIGINT NOT NULL, last_error TEXT)
            """,
            "CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at)",
        ],
        [
            // 11: sign-ins tied to their passkey, console credentials to the admin token, the scopes
            // an application allows, account creation (docs/threat-model.md).
            // 11a: sign-ins remember their credential. Sessions, codes and
            // refresh tokens keep the passkey that signed in, so deleting it (or its user) finds
            // and ends them.
            "ALTER TABLE oauth_grants ADD COLUMN credential_id TEXT",
            "CREATE INDEX oauth_grants_by_credential ON oauth_grants (application_id, credential_id)",
            "CREATE INDEX oauth_grants_by_subject ON oauth_grants (application_id, subject)",
            // 11b: console credentials end with the admin token. Each operator
            // passkey keeps the epoch (a value derived from the admin token's hash) it was enrolled
            // under; a passkey of another epoch, or of none (enrolled before this column), signs
            // nothing in, and the start-up with a new admin token deletes it and its sessions.
            "ALTER TABLE console_credentials ADD COLUMN token_epoch TEXT",
            // 11c: scopes and resources an application allows. The scopes a
            // self-registered client may ask for (the standard OpenID Connect ones by default),
            // the resource indicators (RFC 8707) its tokens may name as audience, and the scopes
            // an initial access token limits its registrations to.
            """
            ALTER TABLE applications ADD COLUMN allowed_scopes TEXT NOT NULL
                DEFAULT '["openid","profile","email","phone","offline_access"]'
            """,
            "ALTER TABLE applications ADD COLUMN resource_indicators TEXT NOT NULL DEFAULT '[]'",
            "ALTER TABLE initial_access_tokens ADD COLUMN scopes TEXT",
            // 11d: account creation (no new column).
        ],
        [
            // 12: WebAuthn Level 3 extensions and related origins.
            // 12a: related origins (WebAuthn L3 §5.11).
            // Each application's related origins (a JSON list, `/.well-known/webauthn`), and the
            // lookup of applications by RP ID that document is answered with.
            "ALTER TABLE applications ADD COLUMN related_origins TEXT NOT NULL DEFAULT '[]'",
            "CREATE INDEX applications_by_rp_id ON applications (rp_id)",
            // 12b: credProps, hints, attestation formats, credential protection.
            // What each application's options ask of clients (hints, attestationFormats,
            // credProtect), and what the client said of each credential at registration
            // (credProps.rk, prf.enabled): NULL when it did not say.
            "ALTER TABLE applications ADD COLUMN hints TEXT NOT NULL DEFAULT '[]'",
            "ALTER TABLE applications ADD COLUMN attestation_formats TEXT NOT NULL DEFAULT '[]'",
            "ALTER TABLE applications ADD COLUMN credential_protection_policy TEXT",
            "ALTER TABLE applications ADD COLUMN enforce_credential_protection_policy INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE credentials ADD COLUMN discoverable INTEGER",
            "ALTER TABLE credentials ADD COLUMN prf_enabled INTEGER",
        ],
        [
            // 13: mutual TLS, self-service tokens and the login path's statements.
            // 13a: mutual TLS client authentication and certificate-bound tokens (RFC 8705).
            // A tls_client_auth client's registered subject DN or SAN (one JSON member), and
            // whether its access tokens are certificate-bound.
            "ALTER TABLE oauth_clients ADD COLUMN tls_client_auth_subject TEXT",
            "ALTER TABLE oauth_clients ADD COLUMN tls_bound INTEGER NOT NULL DEFAULT 0",
            // 13b: access tokens for self-service (`/me`) and SDK passkey management.
            // 13c: the login path's statements (performance).
        ],
        [
            // 14: introspection limits (docs/contract.md §5, "Revocation, introspection, userinfo").
            // 14a: the admin-made clients that may introspect other clients' tokens.
            "ALTER TABLE applications ADD COLUMN introspection_clients TEXT NOT NULL DEFAULT '[]'"
        ],
        [
            // 15: an OAuth client's settings are one document, its ClientMetadata (RFC 7591 §2
            // members and UMFA's own, by their wire names), beside the columns that identify it
            // and hold its secrets: each setting is declared once, in the contract.
        ] + ClientSettingsMigration.statements,
        [
            // 16: mail (docs/operators/mail.md). The outbox every instance sends from, each
            // message sealed with the master key (it may hold a code or a link); and each user's
            // pending email verification, its code by SHA-256, gone with the user.
            """
            CREATE TABLE mail_outbox (
                id TEXT PRIMARY KEY,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                user_id TEXT, recipient TEXT NOT NULL, sealed_message TEXT NOT NULL, attempts BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL, created_at BIGINT NOT NULL, last_error TEXT)
            """,
            "CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at)",
            """
            CREATE TABLE email_verifications (
                application_id TEXT NOT NULL, user_id TEXT NOT NULL, email TEXT NOT NULL, code_hash TEXT NOT NULL,
                attempts_left BIGINT NOT NULL, sent_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                PRIMARY KEY (application_id, user_id),
                FOREIGN KEY (application_id, user_id) REFERENCES users(application_id, user_id) ON DELETE CASCADE)
            """,
        ],
        [
            // 17: back-channel logout (OpenID Connect Back-Channel Logout 1.0): the logout tokens
            // waiting for their clients, sent from every instance as the other outboxes are.
            """
            CREATE TABLE logout_outbox (
                id TEXT PRIMARY KEY,
                application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
                client_id TEXT NOT NULL, uri TEXT NOT NULL, body TEXT NOT NULL, attempts BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL, created_at BIGINT NOT NULL, last_error TEXT)
            """,
            "CREATE INDEX logout_outbox_due ON logout_outbox (next_attempt_at)",
        ],
        [
            // 18: authentication context (`acr`, docs/oidc-provider.md): whether a passkey's
            // attestation chained to the server's attestation roots at registration; NULL for
            // passkeys registered before, which never reach the attested level.
            "ALTER TABLE credentials ADD COLUMN attestation_trusted INTEGER"
        ],
        [
            // 19: signed decisions and CIBA (docs/ciba.md): an approval's authorization details
            // (RFC 9396, as JSON), the assertion that decided it (its evidence), and, for a CIBA
            // request in ping mode, where its notification goes (sealed); an outbox row with a
            // sealed target goes there instead of to the application's webhook.
            "ALTER TABLE oob_transactions ADD COLUMN authorization_details TEXT",
            "ALTER TABLE oob_transactions ADD COLUMN evidence TEXT",
            "ALTER TABLE oob_transactions ADD COLUMN sealed_ping TEXT",
            "ALTER TABLE webhook_outbox ADD COLUMN sealed_target TEXT",
        ],
        [
            // 20: traces (docs/operators/tracing.md): the `traceparent` of the request that queued
            // an outbox row, so its delivery continues that trace; NULL when the server did not
            // trace.
            "ALTER TABLE webhook_outbox ADD COLUMN trace_parent TEXT",
            "ALTER TABLE logout_outbox ADD COLUMN trace_parent TEXT",
            "ALTER TABLE mail_outbox ADD COLUMN trace_parent TEXT",
        ],
    ]
}
