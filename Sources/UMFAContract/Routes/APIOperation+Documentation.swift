/// What `openapi.yaml` says about each operation beyond its declaration. The switch is
/// exhaustive: a new operation does not compile until it has a summary and its error statuses.
extension APIOperation {
    /// The operation's prose, non-path parameters and error statuses for `openapi.yaml`.
    var documentation: OperationDoc {
        switch self {
        case .registrationOptions:
            OperationDoc(
                summary: "Start a registration",
                success: "PublicKeyCredentialCreationOptionsJSON",
                statuses: [400, 401, 403, 408, 413, 503])
        case .registrationVerify:
            OperationDoc(
                summary: "Finish a registration with a RegistrationResponseJSON",
                success: "The new credential and a login token",
                statuses: [400, 401, 403, 408, 409, 413, 429, 503])
        case .authenticationOptions:
            OperationDoc(
                summary: "Start a sign-in (user_id optional for discoverable credentials)",
                success: "PublicKeyCredentialRequestOptionsJSON",
                statuses: [400, 408, 413, 503])
        case .authenticationVerify:
            OperationDoc(
                summary: "Finish a sign-in with an AuthenticationResponseJSON",
                success: "The user and a login token",
                statuses: [400, 401, 408, 413, 429, 503])
        case .unenroll:
            OperationDoc(
                summary: "Remove the credential that signs a fresh challenge",
                success: "Removed",
                statuses: [400, 401, 408, 413, 429, 503])
        case .validateToken:
            OperationDoc(
                summary: "Validate a login JWT or a credential assertion for the application's backend",
                description:
                    "token_type absent or jwt: token is a login JWT, valid when its signature verifies with a current or retired signing key, iss is ours, exp has not passed, the required claims are present, its user_id is the request's and it was issued for application_id. token_type credential: token is an AuthenticationResponseJSON whose challenge this server issued for this application, consumed now (single use). 401 messages name the reason.",
                success: "Valid",
                statuses: [400, 401, 408, 413, 429, 503])
        case .createEnrollmentToken:
            OperationDoc(
                summary: "Grant one registration to a user",
                success: "A single-use enrollment token",
                statuses: [400, 401, 408, 413, 429, 503])
        case .listUserCredentials:
            OperationDoc(
                summary: "List a user's credentials",
                parameters: [.shared(.applicationQuery), .shared(.traceID)],
                success: "The credentials",
                statuses: [400, 401, 404, 429, 503])
        case .deleteUserCredential:
            OperationDoc(
                summary: "Remove a user's credential",
                parameters: [.shared(.applicationQuery), .shared(.traceID)],
                success: "Removed",
                statuses: [400, 401, 404, 429, 503])
        case .deleteUser:
            OperationDoc(
                summary:
                    "Delete a user's whole account: profile, passkeys, recovery codes, device keys, sessions and tokens (docs/contract.md §8)",
                parameters: [.shared(.applicationQuery), .shared(.traceID)],
                success: "Deleted; the user's tokens end at once",
                statuses: [400, 401, 404, 429, 503])
        case .createApplication:
            OperationDoc(
                summary: "Create an application",
                success: "The application and its first API key (shown once)",
                statuses: [400, 401, 408, 413, 429, 503])
        case .listApplications:
            OperationDoc(
                summary: "List applications",
                parameters: [.shared(.traceID)],
                success: "The applications",
                statuses: [401, 429, 503])
        case .getApplication:
            OperationDoc(
                summary: "Show an application",
                parameters: [.shared(.traceID)],
                success: "The application",
                statuses: [400, 401, 404, 429, 503])
        case .updateApplication:
            OperationDoc(
                summary: "Change an application's settings (absent members keep their values)",
                parameters: [.shared(.traceID)],
                success: "The application",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .createAPIKey:
            OperationDoc(
                summary: "Add an API key (older keys keep working)",
                parameters: [.shared(.traceID)],
                success: "The new key (shown once)",
                statuses: [400, 401, 404, 429, 503])
        case .listAPIKeys:
            OperationDoc(
                summary: "List an application's API keys (ids only, never the keys)",
                parameters: [.shared(.traceID)],
                success: "The key ids",
                statuses: [400, 401, 404, 429, 503])
        case .deleteAPIKey:
            OperationDoc(
                summary: "Revoke an API key, at once and on every instance",
                parameters: [.shared(.traceID)],
                success: "Revoked",
                statuses: [400, 401, 404, 429, 503])
        case .listSigningKeys:
            OperationDoc(
                summary: "Every token signing key, newest first (never a private key)",
                parameters: [.shared(.traceID)],
                success: "The keys",
                statuses: [401, 429, 503])
        case .rotateSigningKey:
            OperationDoc(
                summary: "Rotate the token signing key (old keys keep validating their tokens)",
                description:
                    "Without a body, a new key of every algorithm, stored sealed with the master key. With {pkcs11_uri, alg}, the key pair the URI names in a PKCS #11 token (UMFA_PKCS11_MODULE, UMFA_PKCS11_PIN_FILE) becomes the signing key of alg; the token keeps the private key and signs (docs/operators/hsm.md). 400 when the URI or alg is not usable or the token has no such key pair.",
                parameters: [.shared(.traceID)],
                requestBody: ["required": false],
                success: "The new key id",
                statuses: [400, 401, 408, 413, 429, 503])
        case .jwks:
            OperationDoc(
                summary: "Token signing keys, current and retired",
                success: "A JWK Set (RFC 7517)",
                successAnswer: [
                    "content": ["application/json": ["schema": ["$ref": "#/components/schemas/JWKSDocument"]]]
                ],
                statuses: [503])
        case .appleAppSiteAssociation:
            OperationDoc(
                summary: "The iOS apps of every application (webcredentials for passkeys, applinks for /open)",
                success: "An apple-app-site-association document",
                successAnswer: [
                    "content": [
                        "application/json": [
                            "schema": [
                                "type": "object", "required": ["webcredentials", "applinks"],
                                "properties": [
                                    "webcredentials": [
                                        "type": "object", "required": ["apps"],
                                        "properties": [
                                            "apps": [
                                                "type": "array", "items": ["type": "string"],
                                                "description": "TEAMID.bundle.id of every application's apple_app_ids",
                                            ]
                                        ],
                                    ],
                                    "applinks": [
                                        "type": "object", "required": ["details"],
                                        "properties": [
                                            "details": [
                                                "type": "array",
                                                "items": [
                                                    "type": "object", "required": ["appIDs", "components"],
                                                    "properties": [
                                                        "appIDs": ["type": "array", "items": ["type": "string"]],
                                                        "components": ["type": "array", "items": ["type": "object"]],
                                                    ],
                                                ],
                                            ]
                                        ],
                                    ],
                                ],
                            ]
                        ]
                    ]
                ],
                statuses: [503])
        case .assetLinks:
            OperationDoc(
                summary: "The Android apps of every application (Digital Asset Links)",
                success: "Statements granting handle_all_urls and get_login_creds",
                successAnswer: [
                    "content": [
                        "application/json": [
                            "schema": [
                                "type": "array",
                                "items": [
                                    "type": "object", "required": ["relation", "target"],
                                    "properties": [
                                        "relation": ["type": "array", "items": ["type": "string"]],
                                        "target": [
                                            "type": "object",
                                            "required": ["namespace", "package_name", "sha256_cert_fingerprints"],
                                            "properties": [
                                                "namespace": ["type": "string", "enum": ["android_app"]],
                                                "package_name": ["type": "string"],
                                                "sha256_cert_fingerprints": [
                                                    "type": "array", "items": ["type": "string"],
                                                ],
                                            ],
                                        ],
                                    ],
                                ],
                            ]
                        ]
                    ]
                ],
                statuses: [503])
        case .relatedOrigins:
            OperationDoc(
                summary: "Related origins of the RP ID the Host header names (WebAuthn L3 §5.11)",
                description:
                    "The document a browser fetches from https://<rp_id>/.well-known/webauthn before it lets another site's origin use the RP ID: the related_origins of every application whose rp_id is the request's Host (without port), merged oldest application first, duplicates removed.",
                success: "The related origins",
                statuses: [404, 503])
        case .healthReady:
            OperationDoc(
                summary: "Readiness",
                description:
                    "Whether this instance should be sent requests (docs/operators/probes.md): 200 when its database answers and takes writes, 503 while it cannot be reached or written (the database is asked at most once a second, and a probe that takes over 3 s counts as unreachable) and while the instance drains after SIGTERM (UMFA_DRAIN_SECONDS). The answer says which of the two, never the database's error, which goes to the log.",
                parameters: [.shared(.traceID)],
                success: "Ready",
                statuses: [503])
        case .health:
            OperationDoc(
                summary: "Liveness",
                parameters: [.shared(.traceID)],
                success: "OK",
                statuses: [])
        case .metrics:
            OperationDoc(
                summary: "Prometheus metrics",
                description:
                    "Not open to anyone. With UMFA_METRICS_TOKEN set, every caller must send it as a bearer token (401 otherwise); without one, only callers on the server's own machine are answered (a loopback peer, no X-Forwarded-For or Forwarded header; 403 otherwise).",
                security: [["metricsToken": []], [:]],
                success: "Prometheus text format",
                successAnswer: ["content": ["text/plain": ["schema": ["type": "string"]]]],
                statuses: [401, 403, 429])
        case .openAPI:
            OperationDoc(
                summary: "This document",
                success: "OpenAPI 3.1",
                successAnswer: ["content": ["application/yaml": ["schema": ["type": "string"]]]],
                statuses: [])
        case .demoPage:
            OperationDoc(
                summary: "The passkey demo page (sign up, sign in, the login token, the signed-in user's passkeys)",
                description:
                    "Plain HTML, CSS and JavaScript from this server only (strict Content-Security-Policy). It uses the development application unless the address names another one with ?app=<application id>.",
                parameters: [
                    .written([
                        "name": "app", "in": "query", "required": false,
                        "description": "The application the page uses; the development application when absent",
                        "schema": ["type": "string", "format": "uuid"],
                    ])
                ],
                success: "HTML",
                successAnswer: ["content": ["text/html": ["schema": ["type": "string"]]]],
                statuses: [])
        case .demoStylesheet:
            OperationDoc(
                summary: "The demo page's stylesheet, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/css": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .demoScript:
            OperationDoc(
                summary: "The demo page's script, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .createOAuthClient:
            OperationDoc(
                summary: "Register an OAuth client (its secret is shown once)",
                parameters: [.shared(.traceID)],
                success: "Register an OAuth client (its secret is shown once)",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .listOAuthClients:
            OperationDoc(
                summary: "List an application's OAuth clients (never their secrets)",
                parameters: [.shared(.traceID)],
                success: "List an application's OAuth clients (never their secrets)",
                statuses: [400, 401, 404, 429, 503])
        case .getOAuthClient:
            OperationDoc(
                summary: "Show an OAuth client",
                parameters: [.shared(.traceID)],
                success: "Show an OAuth client",
                statuses: [400, 401, 404, 429, 503])
        case .updateOAuthClient:
            OperationDoc(
                summary: "Change an OAuth client's settings",
                parameters: [.shared(.traceID)],
                success: "Change an OAuth client's settings",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .deleteOAuthClient:
            OperationDoc(
                summary: "Remove an OAuth client",
                parameters: [.shared(.traceID)],
                success: "Remove an OAuth client",
                statuses: [400, 401, 404, 429, 503])
        case .rotateOAuthClientSecret:
            OperationDoc(
                summary: "Replace a confidential client's secret (the old one stops working)",
                parameters: [.shared(.traceID)],
                success: "Replace a confidential client's secret (the old one stops working)",
                statuses: [400, 401, 404, 429, 503])
        case .oidcDiscovery:
            OperationDoc(
                summary: "The issuer metadata (OpenID Connect Discovery 1.0 location)",
                parameters: [.shared(.traceID)],
                success: "The issuer metadata (OpenID Connect Discovery 1.0 location)",
                statuses: [404, 503])
        case .oauthServerMetadata:
            OperationDoc(
                summary: "The issuer metadata (RFC 8414 location)",
                parameters: [.shared(.traceID)],
                success: "The issuer metadata (RFC 8414 location)",
                statuses: [404, 503])
        case .oidcJWKS:
            OperationDoc(
                summary: "The issuer's token signing keys",
                parameters: [.shared(.traceID)],
                success:
                    "A JWK Set (RFC 7517), the same keys as /.well-known/jwks.json: every key that validates this issuer's tokens",
                successAnswer: [
                    "content": ["application/json": ["schema": ["$ref": "#/components/schemas/JWKSDocument"]]]
                ],
                statuses: [404, 503])
        case .oauthToken:
            OperationDoc(
                summary: "Token endpoint (RFC 6749 §3.2)",
                parameters: [.shared(.traceID)],
                requestBody: [
                    "required": true,
                    "content": [
                        "application/x-www-form-urlencoded": ["schema": ["$ref": "#/components/schemas/OAuthTokenForm"]]
                    ],
                ],
                success: "Token endpoint (RFC 6749 §3.2)",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .oauthIntrospect:
            OperationDoc(
                summary: "Token introspection (RFC 7662)",
                parameters: [.shared(.traceID)],
                requestBody: [
                    "required": true,
                    "content": [
                        "application/x-www-form-urlencoded": [
                            "schema": ["$ref": "#/components/schemas/OAuthTokenActionForm"]
                        ]
                    ],
                ],
                success: "Token introspection (RFC 7662)",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .oauthRevoke:
            OperationDoc(
                summary: "Token revocation (RFC 7009)",
                parameters: [.shared(.traceID)],
                requestBody: [
                    "required": true,
                    "content": [
                        "application/x-www-form-urlencoded": [
                            "schema": ["$ref": "#/components/schemas/OAuthTokenActionForm"]
                        ]
                    ],
                ],
                success: "Revoked, or nothing to revoke (RFC 7009 §2.2)",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .oauthAuthorize:
            OperationDoc(
                summary: "Authorization endpoint (RFC 6749 §4.1, PKCE S256, OpenID Connect Core §3.1.2)",
                description:
                    "Shows the hosted passkey page (sign in, create an account, consent), or redirects straight back with code, state and iss (RFC 9207) when the SSO session answers, or with error, error_description, state and iss. An unknown client_id or a redirect_uri the client did not register gets an error page and no redirect.",
                parameters: [
                    .written(["name": "client_id", "in": "query", "required": true, "schema": ["type": "string"]]),
                    .written([
                        "name": "redirect_uri", "in": "query", "required": false, "schema": ["type": "string"],
                        "description": "Matched exactly (loopback ports free); required without request_uri",
                    ]),
                    .written([
                        "name": "response_type", "in": "query", "required": false,
                        "schema": ["type": "string", "enum": ["code"]], "description": "Required without request_uri",
                    ]), .written(["name": "scope", "in": "query", "required": false, "schema": ["type": "string"]]),
                    .written([
                        "name": "state", "in": "query", "required": false,
                        "schema": ["type": "string", "maxLength": 1024],
                    ]),
                    .written([
                        "name": "nonce", "in": "query", "required": false,
                        "schema": ["type": "string", "maxLength": 512],
                    ]),
                    .written([
                        "name": "code_challenge", "in": "query", "required": false,
                        "schema": ["type": "string", "minLength": 43, "maxLength": 43],
                        "description": "Required without request_uri",
                    ]),
                    .written([
                        "name": "code_challenge_method", "in": "query", "required": false,
                        "schema": ["type": "string", "enum": ["S256"]], "description": "Required without request_uri",
                    ]),
                    .written([
                        "name": "prompt", "in": "query", "required": false, "schema": ["type": "string"],
                        "description": "none, login, create or consent",
                    ]),
                    .written([
                        "name": "login_hint", "in": "query", "required": false,
                        "schema": ["type": "string", "maxLength": 320], "description": "An email address or user id",
                    ]),
                    .written([
                        "name": "max_age", "in": "query", "required": false,
                        "schema": ["type": "integer", "minimum": 0],
                    ]),
                    .written([
                        "name": "response_mode", "in": "query", "required": false,
                        "schema": ["type": "string", "enum": ["query"]],
                    ]),
                    .written([
                        "name": "request_uri", "in": "query", "required": false, "schema": ["type": "string"],
                        "description": "From PAR; then only client_id is needed",
                    ]),
                ],
                success:
                    "The hosted page; with Accept application/vnd.auth+json and Authorization DPoP <flow token> (and its DPoP proof), the first step of the API-driven flow (docs/contract.md §6)",
                successAnswer: [
                    "content": [
                        "text/html": ["schema": ["type": "string"]],
                        "application/vnd.auth+json": ["schema": ["$ref": "#/components/schemas/FlowStep"]],
                    ]
                ],
                statuses: [303, 400, 404, 503],
                writtenAnswers: [
                    (
                        303,
                        ["description": "Back to the client: code, state, iss; or error, error_description, state, iss"]
                    ),
                    (
                        400,
                        [
                            "description": "The error page (the client or redirect URI is not valid)",
                            "content": ["text/html": ["schema": ["type": "string"]]],
                        ]
                    ),
                ])
        case .oauthUserinfo:
            OperationDoc(
                summary: "UserInfo (OpenID Connect Core §5.3) with a Bearer access token",
                security: [["bearerAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The claims of the token's scopes",
                statuses: [401, 403, 404, 503])
        case .oauthUserinfoPost:
            OperationDoc(
                summary: "UserInfo by POST (OpenID Connect Core §5.3.1); the token in the Authorization header",
                security: [["bearerAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The claims of the token's scopes",
                statuses: [401, 403, 404, 503])
        case .oauthLogout:
            OperationDoc(
                summary: "RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0)",
                description:
                    "The SSO session ends at once only with an id_token_hint this issuer signed for the browser's current session (same sub and sid). Without one, or with one that is not valid or names another session, the answer is a confirmation page (§2): a form that POSTs logout_confirm with a CSRF token bound to the session back here, and only that POST ends the session. Without a session there is nothing to end, and the answer is as for a signed-out person.",
                parameters: [
                    .written(["name": "id_token_hint", "in": "query", "required": false, "schema": ["type": "string"]]),
                    .written(["name": "client_id", "in": "query", "required": false, "schema": ["type": "string"]]),
                    .written([
                        "name": "post_logout_redirect_uri", "in": "query", "required": false,
                        "schema": ["type": "string"], "description": "One the client registered",
                    ]), .written(["name": "state", "in": "query", "required": false, "schema": ["type": "string"]]),
                ],
                success:
                    "Signed out (no redirect asked for), or the confirmation page when the request has no id_token_hint for the current session",
                successAnswer: ["content": ["text/html": ["schema": ["type": "string"]]]],
                statuses: [303, 400, 404, 503],
                writtenAnswers: [
                    (303, ["description": "Signed out; back to post_logout_redirect_uri with state"]),
                    (400, ["description": "The error page", "content": ["text/html": ["schema": ["type": "string"]]]]),
                ])
        case .oauthLogoutPost:
            OperationDoc(
                summary: "RP-initiated logout by POST (§2), and the answer of the confirmation page",
                description:
                    "With logout_confirm, the confirmation page's form: the session ends when csrf_token is the one the page carried for this session's cookie (else 403, still signed in). Without it, a relying party's logout request by POST, which goes on as the GET (303) so the browser sends its SameSite=Lax session cookie.",
                requestBody: [
                    "required": true,
                    "content": [
                        "application/x-www-form-urlencoded": [
                            "schema": [
                                "type": "object",
                                "properties": [
                                    "logout_confirm": [
                                        "type": "string", "description": "The confirmation page's button",
                                    ],
                                    "csrf_token": [
                                        "type": "string", "description": "The token the confirmation page carried",
                                    ], "id_token_hint": ["type": "string"], "client_id": ["type": "string"],
                                    "post_logout_redirect_uri": [
                                        "type": "string", "description": "One the client registered",
                                    ], "state": ["type": "string"],
                                ],
                            ]
                        ]
                    ],
                ],
                success: "Signed out (no redirect asked for)",
                successAnswer: ["content": ["text/html": ["schema": ["type": "string"]]]],
                statuses: [303, 400, 403, 404, 408, 413, 503],
                writtenAnswers: [
                    (
                        303,
                        [
                            "description":
                                "Signed out and back to post_logout_redirect_uri with state; or, without logout_confirm, on to the GET with the request's parameters"
                        ]
                    ),
                    (400, ["description": "The error page", "content": ["text/html": ["schema": ["type": "string"]]]]),
                    (
                        403,
                        [
                            "description": "The confirmation's csrf_token is not this session's: nothing ended",
                            "content": ["text/html": ["schema": ["type": "string"]]],
                        ]
                    ),
                ])
        case .interactionSignInOptions:
            OperationDoc(
                summary: "Hosted page: start a passkey sign-in (by email, user id, or discoverable)",
                success:
                    "PublicKeyCredentialRequestOptionsJSON; the same shape for an unknown login as for a known one",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .interactionSignInVerify:
            OperationDoc(
                summary: "Hosted page: finish a passkey sign-in; sets the SSO session cookie",
                success: "Back to the client, or on to consent",
                statuses: [400, 401, 403, 404, 408, 413, 429, 503])
        case .interactionCreateAccountOptions:
            OperationDoc(
                summary: "Hosted page: a new account's profile; creation options for its first passkey",
                description:
                    "Counts against the per-address options limit (UMFA_LIMIT_OPTIONS_REQUESTS) like every options route: 429 with Retry-After past it. Stores no user: the profile waits with the interaction and the challenge, and create-account/verify stores the user, its profile and its passkey together. 409 when the email address has an account already.",
                success: "PublicKeyCredentialCreationOptionsJSON for the new user",
                statuses: [400, 401, 403, 404, 408, 409, 413, 429, 503])
        case .interactionCreateAccountVerify:
            OperationDoc(
                summary: "Hosted page: store the new passkey and the profile; sets the SSO session cookie",
                description:
                    "The user and its profile are created here, with the passkey, or not at all: 409 when another sign-up took the email address since the options (the unique index decides).",
                success: "Back to the client, or on to consent",
                statuses: [400, 401, 403, 404, 408, 409, 413, 429, 503])
        case .interactionConsent:
            OperationDoc(
                summary: "Hosted page: the person allows or denies the client's scopes",
                success: "Back to the client with a code, or with error access_denied",
                statuses: [400, 401, 403, 404, 408, 413, 503])
        case .interactionVerifyEmail:
            OperationDoc(
                summary: "Hosted page, after a sign-up: the code mailed to the new address, or none to skip",
                description:
                    "A wrong code spends one of its 5 attempts (400, with the attempts left; 409 once none is pending); the right one marks the address verified (audit email.verified). Then on as after any sign-in: consent or back to the client.",
                success: "What the page does next",
                statuses: [400, 401, 403, 404, 408, 409, 413, 503])
        case .hostedStylesheet:
            OperationDoc(
                summary: "The hosted pages' stylesheet, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/css": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .hostedScript:
            OperationDoc(
                summary: "The hosted pages' script, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .hostedRecoveryScript:
            OperationDoc(
                summary: "The recovery page's script, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .accountPage:
            OperationDoc(
                summary:
                    "The hosted account page: after a passkey sign-in, rename and remove passkeys, verify the email address, delete the account",
                description:
                    "A page of this server: it signs in through the device-facing sign-in (a login token kept in the page's memory only) and calls the self-service routes with it; changes need a sign-in of the last 5 minutes (docs/self-service.md, \"The account page\").",
                success: "The page",
                successAnswer: ["content": ["text/html": ["schema": ["type": "string"]]]],
                statuses: [404, 503])
        case .hostedAccountScript:
            OperationDoc(
                summary: "The account page's script, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .oauthDeviceAuthorization:
            OperationDoc(
                summary: "Device authorization (RFC 8628 §3.1): codes for a device without a browser",
                description:
                    "A client registered for urn:ietf:params:oauth:grant-type:device_code authenticates as at the token endpoint (a public client by client_id, or HTTP Basic with an empty password) and gets a device_code to poll the token endpoint with and a user_code the person types at verification_uri (docs/device-grant.md).",
                parameters: [.shared(.traceID)],
                requestBody: [
                    "required": true,
                    "content": [
                        "application/x-www-form-urlencoded": [
                            "schema": ["$ref": "#/components/schemas/DeviceAuthorizationForm"]
                        ]
                    ],
                ],
                success: "The device and user codes",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .oauthBackchannelAuthentication:
            OperationDoc(
                summary: "Client-initiated backchannel authentication (OpenID CIBA Core 1.0 §7)",
                description:
                    "A client registered for urn:openid:params:grant-type:ciba authenticates as at the token endpoint and names the person by exactly one of login_hint (the user id or a verified email), id_token_hint (an ID token this issuer gave it) or login_hint_token (a login token of the application). The person's device is asked to approve, showing binding_message and the canonical text of authorization_details, and signs the decision with a passkey (docs/ciba.md). The answer is the same for a person who is unknown or has no passkey: the request then ends expired_token.",
                parameters: [.shared(.traceID)],
                requestBody: [
                    "required": true,
                    "content": [
                        "application/x-www-form-urlencoded": [
                            "schema": ["$ref": "#/components/schemas/BackchannelAuthenticationForm"]
                        ]
                    ],
                ],
                success: "The auth_req_id to poll (or be pinged) with",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .devicePage:
            OperationDoc(
                summary:
                    "The hosted device page: the person types (or scans) the user code, signs in with a passkey and approves or denies the device",
                description:
                    "With ?user_code= (verification_uri_complete) the code is filled in and the page shows it as a QR code, for a phone to continue on. The page signs in through the device-facing sign-in (a login token kept in the page's memory only) and answers through /device/decision.",
                parameters: [
                    .written([
                        "name": "user_code", "in": "query", "required": false,
                        "schema": ["type": "string", "maxLength": 32], "description": "The user code, filled in",
                    ])
                ],
                success: "The page",
                successAnswer: ["content": ["text/html": ["schema": ["type": "string"]]]],
                statuses: [404, 503])
        case .deviceCodeLookup:
            OperationDoc(
                summary: "Device page: what the device with this user code asks for",
                description:
                    "404 for a code that waits for no decision. At most 10 wrong codes in 5 minutes from one address, then 429 with Retry-After.",
                success: "The client and scopes",
                statuses: [400, 404, 408, 413, 429, 503])
        case .deviceDecision:
            OperationDoc(
                summary: "Device page: approve or deny the device, as the signed-in person",
                description:
                    "Needs the person's login token of this application, at most 5 minutes old. The user code is spent; the device's next poll gets tokens or access_denied. Audited as device.approved or device.denied. Wrong codes count as at /device/code.",
                success: "The decision",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .hostedPageScript:
            OperationDoc(
                summary: "The passkey sign-in and calls shared by the account and device pages, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .hostedDeviceScript:
            OperationDoc(
                summary: "The device page's script, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .requestEmailRecovery:
            OperationDoc(
                summary:
                    "Ask for a link, by mail, to register a new passkey (docs/self-service.md, \"Recovery by email\")",
                description:
                    "202 and the same answer whether or not the address belongs to an account; only a verified address of an account gets the mail (15 minutes, used once). At most 3 a window for one address and 10 from one client address (429). 409 when the server sends no mail; 403 when the application turned email_recovery off.",
                success: "Accepted",
                statuses: [400, 403, 404, 408, 409, 413, 429, 503])
        case .emailRecoveryPage:
            OperationDoc(
                summary: "The page of a mailed recovery link: a button that registers a new passkey",
                description: "Opening it spends nothing (mail scanners fetch links); registering does.",
                success: "The page",
                successAnswer: ["content": ["text/html": ["schema": ["type": "string"]]]],
                statuses: [404, 503])
        case .emailRecoveryOptions:
            OperationDoc(
                summary: "Recovery page: creation options for the link's account (spends nothing)",
                success: "PublicKeyCredentialCreationOptionsJSON",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .emailRecoveryVerify:
            OperationDoc(
                summary: "Recovery page: store the new passkey and spend the link; audit account.recovered",
                success: "The account and its new passkey",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .hostedWebAuthnScript:
            OperationDoc(
                summary: "The WebAuthn JSON helpers of the hosted pages, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .demoWebAuthnScript:
            OperationDoc(
                summary: "The WebAuthn JSON helpers, for the demo page, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .updateUserProfile:
            OperationDoc(
                summary: "Change a user's profile claims (the application's backend)",
                success: "The profile as stored",
                statuses: [400, 401, 404, 408, 409, 413, 429, 503])
        case .oauthPushedAuthorizationRequest:
            OperationDoc(
                summary: "Pushed authorization request (RFC 9126)",
                parameters: [.shared(.traceID)],
                requestBody: [
                    "required": true,
                    "content": [
                        "application/x-www-form-urlencoded": [
                            "schema": ["$ref": "#/components/schemas/PushedAuthorizationForm"]
                        ]
                    ],
                ],
                success: "The request_uri for the authorization endpoint",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .createInitialAccessToken:
            OperationDoc(
                summary: "Issue an initial access token for dynamic client registration (RFC 7591 §3)",
                parameters: [.shared(.traceID)],
                success: "The token, shown once",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .oauthRegisterClient:
            OperationDoc(
                summary: "Dynamic client registration (RFC 7591)",
                security: [["initialAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The registered client, its secret and registration access token shown once",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .oauthReadClientRegistration:
            OperationDoc(
                summary: "Read a dynamically registered client (RFC 7592 §2.1)",
                security: [["registrationAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The client's metadata",
                statuses: [401, 404, 429, 503])
        case .oauthUpdateClientRegistration:
            OperationDoc(
                summary: "Replace a dynamically registered client's metadata (RFC 7592 §2.2)",
                security: [["registrationAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The client's metadata as now registered",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .oauthDeleteClientRegistration:
            OperationDoc(
                summary: "Delete a dynamically registered client (RFC 7592 §2.3)",
                security: [["registrationAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The client is gone",
                statuses: [401, 404, 429, 503])
        case .oauthAttestationChallenge:
            OperationDoc(
                summary:
                    "A challenge for a client attestation (App Attest, Android key attestation), used once within 300 s",
                parameters: [.shared(.traceID)],
                success: "The challenge",
                statuses: [404, 429, 503])
        case .listMyCredentials:
            OperationDoc(
                summary: "The signed-in user's passkeys (self-service)",
                security: [["loginToken": []], ["passkeysAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The user's credentials, never their keys",
                statuses: [401, 403, 429, 503])
        case .renameMyCredential:
            OperationDoc(
                summary: "Rename one of the signed-in user's passkeys",
                security: [["loginToken": []], ["passkeysAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The credential",
                statuses: [400, 401, 403, 404, 408, 413, 429, 503])
        case .deleteMyCredential:
            OperationDoc(
                summary: "Delete one of the signed-in user's passkeys (the last one only with confirm_last=true)",
                security: [["loginToken": []], ["passkeysAccessToken": []]],
                parameters: [.shared(.confirmLast), .shared(.traceID)],
                success: "Removed",
                statuses: [400, 401, 403, 404, 409, 429, 503])
        case .deleteMyAccount:
            OperationDoc(
                summary:
                    "Delete the signed-in user's whole account (a sign-in at most 5 minutes old; docs/contract.md §8)",
                security: [["loginToken": []], ["accountAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "Deleted; the user's tokens end at once",
                statuses: [401, 403, 404, 429, 503])
        case .sendMyEmailVerification:
            OperationDoc(
                summary:
                    "Mail a new six-digit code to the signed-in user's unverified email address (10 minutes, 5 attempts; at most one a minute)",
                security: [["loginToken": []], ["accountAccessToken": []]],
                parameters: [.shared(.traceID)],
                success:
                    "The address and when the code stops working; email_verified true, and no mail, when it is verified already",
                statuses: [401, 403, 404, 409, 429, 503])
        case .verifyMyEmail:
            OperationDoc(
                summary: "Verify the signed-in user's email address with the mailed code",
                security: [["loginToken": []], ["accountAccessToken": []]],
                parameters: [.shared(.traceID)],
                success: "The address, now verified",
                statuses: [400, 401, 403, 404, 408, 409, 413, 429, 503])
        case .createMyRecoveryCodes:
            OperationDoc(
                summary: "New recovery codes for the signed-in user (replacing earlier ones)",
                parameters: [.shared(.traceID)],
                success: "The codes, shown once",
                statuses: [401, 429, 503])
        case .countMyRecoveryCodes:
            OperationDoc(
                summary: "How many of the signed-in user's recovery codes are left",
                parameters: [.shared(.traceID)],
                success: "The count",
                statuses: [401, 429, 503])
        case .recoverAccount:
            OperationDoc(
                summary: "Redeem a recovery code for an enrollment token",
                parameters: [.shared(.traceID)],
                success: "An enrollment token for a new passkey",
                statuses: [400, 401, 408, 413, 429, 503])
        case .createUserRecoveryCodes:
            OperationDoc(
                summary: "The backend issues a user's recovery codes (replacing earlier ones)",
                parameters: [.shared(.traceID)],
                success: "The codes, shown once",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .listAuditEvents:
            OperationDoc(
                summary: "The audit log of every application",
                parameters: [
                    .shared(.auditApplicationFilter), .shared(.auditUserFilter), .shared(.auditActionFilter),
                    .shared(.auditSince), .shared(.auditUntil), .shared(.auditLimit), .shared(.auditCursor),
                    .shared(.traceID),
                ],
                success: "A page of events, oldest first",
                statuses: [400, 401, 408, 413, 429, 503])
        case .listApplicationAuditEvents:
            OperationDoc(
                summary: "The audit log of the API key's own application",
                parameters: [
                    .shared(.applicationQuery), .shared(.auditUserFilter), .shared(.auditActionFilter),
                    .shared(.auditSince), .shared(.auditUntil), .shared(.auditLimit), .shared(.auditCursor),
                    .shared(.traceID),
                ],
                success: "A page of events, oldest first",
                statuses: [400, 401, 408, 413, 429, 503])
        case .listApplicationUsers:
            OperationDoc(
                summary: "Find an application's user by user id or e-mail, or list the newest",
                parameters: [.shared(.userQuery), .shared(.traceID)],
                success: "The users",
                statuses: [400, 401, 404, 429, 503])
        case .listApplicationUserCredentials:
            OperationDoc(
                summary: "A user's passkeys (never public keys)",
                parameters: [.shared(.traceID)],
                success: "The passkeys",
                statuses: [400, 401, 404, 429, 503])
        case .deleteApplicationUserCredential:
            OperationDoc(
                summary: "Delete a user's passkey",
                parameters: [.shared(.traceID)],
                success: "Deleted",
                statuses: [400, 401, 404, 429, 503])
        case .deleteApplicationUser:
            OperationDoc(
                summary:
                    "Delete a user's whole account: profile, passkeys, recovery codes, device keys, sessions and tokens (docs/contract.md §8)",
                parameters: [.shared(.traceID)],
                success: "Deleted; the user's tokens end at once",
                statuses: [400, 401, 404, 429, 503])
        case .createApplicationUserRecoveryCodes:
            OperationDoc(
                summary: "Issue a user's recovery codes (replacing earlier ones)",
                parameters: [.shared(.traceID)],
                success: "The codes, shown once",
                statuses: [400, 401, 404, 429, 503])
        case .consolePage:
            OperationDoc(
                summary:
                    "The admin console (docs/contract.md §8): passkey sign-in for operators, then applications, users, audit log and signing keys",
                success: "The file",
                successAnswer: ["content": ["text/html": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .consoleStylesheet:
            OperationDoc(
                summary: "The console's stylesheet, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/css": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .consoleScript:
            OperationDoc(
                summary: "The console's script, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .consoleWebAuthnScript:
            OperationDoc(
                summary: "The WebAuthn JSON helpers the console uses, with an ETag",
                success: "The file",
                successAnswer: ["content": ["text/javascript": ["schema": ["type": "string"]]]],
                statuses: [304],
                writtenAnswers: [(304, ["description": "Not modified (If-None-Match)"])])
        case .consoleSession:
            OperationDoc(
                summary: "The console session the umfa_console cookie names, with its CSRF token",
                parameters: [.shared(.traceID)],
                success: "Signed in",
                statuses: [401, 503])
        case .consoleSignIn:
            OperationDoc(
                summary: "Sign in to the console with an operator passkey (sets the umfa_console cookie)",
                success: "Signed in",
                statuses: [400, 401, 408, 413, 429, 503])
        case .consoleSignOut:
            OperationDoc(
                summary: "End the console session (needs X-CSRF-Token; clears the cookie)",
                parameters: [.shared(.traceID)],
                success: "Signed out",
                statuses: [401, 503])
        case .consoleEnrollOptions:
            OperationDoc(
                summary: "Creation options for a new operator passkey, given the admin token",
                success: "Options for navigator.credentials.create",
                statuses: [400, 401, 408, 413, 429, 503])
        case .consoleEnroll:
            OperationDoc(
                summary: "Enroll an operator passkey with the admin token; signs in (sets the umfa_console cookie)",
                success: "Enrolled and signed in",
                statuses: [400, 401, 408, 409, 413, 429, 503])
        case .consoleSignInOptions:
            OperationDoc(
                summary: "Request options for an operator's passkey sign-in (discoverable, user verification required)",
                parameters: [.shared(.traceID)],
                success: "Options for navigator.credentials.get",
                statuses: [429, 503])
        case .listConsoleCredentials:
            OperationDoc(
                summary: "The admin console's operator passkeys (never their keys)",
                description:
                    "Every passkey was enrolled with the admin token of its time; when the server starts with another admin token, every passkey and session of the earlier one is removed.",
                parameters: [.shared(.traceID)],
                success: "The passkeys",
                statuses: [401, 429, 503])
        case .deleteConsoleCredential:
            OperationDoc(
                summary: "Remove an operator passkey; every session it started ends at once, on every instance",
                pathParameters: [.shared(.consoleCredentialPath)],
                parameters: [.shared(.traceID)],
                success: "Removed",
                statuses: [400, 401, 404, 429, 503])
        case .listConsoleSessions:
            OperationDoc(
                summary: "The admin console's live sessions",
                parameters: [.shared(.traceID)],
                success: "The sessions",
                statuses: [401, 429, 503])
        case .deleteConsoleSession:
            OperationDoc(
                summary: "End a console session at once, on every instance",
                parameters: [.shared(.traceID)],
                success: "Ended",
                statuses: [400, 401, 404, 429, 503])
        case .outOfBandEnroll:
            OperationDoc(
                summary: "Start an out-of-band enrollment: a QR code and app link for the user's phone",
                success: "The user and the enrollment transaction",
                statuses: [400, 401, 408, 413, 429, 503])
        case .createApproval:
            OperationDoc(
                summary: "Ask the user (or whoever scans the QR code) to approve a message on the phone",
                success: "The approval transaction",
                statuses: [400, 401, 404, 408, 413, 429, 503])
        case .transactionStatus:
            OperationDoc(
                summary: "A transaction's status, by its status token (the login token once it succeeded)",
                success: "The status",
                statuses: [400, 401, 408, 413, 429, 503])
        case .dispatchRedeem:
            OperationDoc(
                summary: "The phone redeems the app link's dispatch token (once) for the ceremony to run",
                success: "The ceremony",
                statuses: [400, 401, 408, 413, 429, 503])
        case .dispatchComplete:
            OperationDoc(
                summary: "The phone completes a redeemed transaction with its ceremony's answer",
                success: "The transaction's status",
                statuses: [400, 401, 403, 404, 408, 409, 413, 429, 503])
        case .openAppLink:
            OperationDoc(
                summary: "Where an app link lands on a phone without the app; says what to do",
                success: "The page",
                successAnswer: ["content": ["text/html": ["schema": ["type": "string"]]]],
                statuses: [])
        case .adminOutOfBandEnroll:
            OperationDoc(
                summary: "Start an out-of-band enrollment for a user as the admin (the console's QR code)",
                parameters: [.shared(.traceID)],
                success: "The user and the enrollment transaction",
                statuses: [400, 401, 404, 429, 503])
        case .pendingApprovals:
            OperationDoc(
                summary: "The approvals waiting for a user, for a device proven by its device key",
                success: "The pending approvals, oldest first",
                statuses: [400, 401, 408, 413, 429, 503])
        case .updateDeviceInformation:
            OperationDoc(
                summary:
                    "Changes the name and push token a device registered with its out-of-band enrollment, for a device proven by its device key",
                success: "The device information now kept",
                statuses: [400, 401, 408, 413, 429, 503])
        case .approvalEvents:
            OperationDoc(
                summary:
                    "A server-sent event stream of a user's approvals (event approval, data a PendingApproval), for a device proven by its device key",
                parameters: [
                    .written([
                        "name": "application_id", "in": "query", "required": true,
                        "schema": ["$ref": "#/components/schemas/ApplicationID"],
                    ]),
                    .written([
                        "name": "user_id", "in": "query", "required": true,
                        "schema": ["$ref": "#/components/schemas/UserID"],
                    ]),
                    .written([
                        "name": "max_seconds", "in": "query", "required": false,
                        "description": "How long the stream stays open (1-300, default 300)",
                        "schema": ["type": "integer", "minimum": 1, "maximum": 300],
                    ]),
                ],
                success: "The event stream",
                successAnswer: ["content": ["text/event-stream": ["schema": ["type": "string"]]]],
                statuses: [400, 401, 408, 413, 429, 503])
        case .rotateWebhookSecret:
            OperationDoc(
                summary: "A new webhook signing secret for the application, shown once",
                parameters: [.shared(.traceID)],
                success: "The new secret",
                statuses: [400, 401, 404, 409, 429, 503])
        case .flowStep:
            OperationDoc(
                summary: "The step the flow is at: the start, consent, or the authorization response",
                successAnswer: ["$ref": "#/components/responses/FlowStep"],
                statuses: [400, 401, 403, 429, 503])
        case .flowSignIn:
            OperationDoc(
                summary: "Sign in with a passkey: the WebAuthn client operation (username optional)",
                requestBody: [
                    "required": false,
                    "content": [
                        "application/x-www-form-urlencoded": ["schema": ["$ref": "#/components/schemas/FlowSubmission"]]
                    ],
                ],
                successAnswer: ["$ref": "#/components/responses/FlowStep"],
                statuses: [400, 401, 403, 429, 503])
        case .flowSignInVerify:
            OperationDoc(
                summary: "The passkey's assertion (credential); then consent or the authorization response",
                requestBody: [
                    "required": false,
                    "content": [
                        "application/x-www-form-urlencoded": ["schema": ["$ref": "#/components/schemas/FlowSubmission"]]
                    ],
                ],
                successAnswer: ["$ref": "#/components/responses/FlowStep"],
                statuses: [400, 401, 403, 429, 503])
        case .flowCreateAccount:
            OperationDoc(
                summary: "A new account's profile: the WebAuthn registration client operation",
                description:
                    "Counts against the per-address options limit like every options route (429 too-many-attempts past it) and stores no user; create-account/verify stores the user, its profile and its passkey together.",
                requestBody: [
                    "required": false,
                    "content": [
                        "application/x-www-form-urlencoded": ["schema": ["$ref": "#/components/schemas/FlowSubmission"]]
                    ],
                ],
                successAnswer: ["$ref": "#/components/responses/FlowStep"],
                statuses: [400, 401, 403, 429, 503])
        case .flowCreateAccountVerify:
            OperationDoc(
                summary: "The new passkey (credential); then consent or the authorization response",
                requestBody: [
                    "required": false,
                    "content": [
                        "application/x-www-form-urlencoded": ["schema": ["$ref": "#/components/schemas/FlowSubmission"]]
                    ],
                ],
                successAnswer: ["$ref": "#/components/responses/FlowStep"],
                statuses: [400, 401, 403, 429, 503])
        case .flowConsent:
            OperationDoc(
                summary: "The consent answer (decision allow or deny)",
                requestBody: [
                    "required": false,
                    "content": [
                        "application/x-www-form-urlencoded": ["schema": ["$ref": "#/components/schemas/FlowSubmission"]]
                    ],
                ],
                successAnswer: ["$ref": "#/components/responses/FlowStep"],
                statuses: [400, 401, 403, 429, 503])
        case .flowStartApproval:
            OperationDoc(
                summary: "Approve on another device: a polling step with the out-of-band QR code and app link",
                requestBody: [
                    "required": false,
                    "content": [
                        "application/x-www-form-urlencoded": ["schema": ["$ref": "#/components/schemas/FlowSubmission"]]
                    ],
                ],
                successAnswer: ["$ref": "#/components/responses/FlowStep"],
                statuses: [400, 401, 403, 429, 503])
        case .flowPollApproval:
            OperationDoc(
                summary: "The approval's status: pending, done (continue) or failed",
                successAnswer: ["$ref": "#/components/responses/FlowStep"],
                statuses: [400, 401, 403, 429, 503])
        }
    }
}
