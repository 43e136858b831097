/// The document's information, security schemes and shared responses (OpenAPI 3.1 §4.8).
enum OpenAPIInfo {
    /// The info object.
    static let info: YAMLNode = [
        "title": "UMFA authenticator server", "version": "1",
        "description":
            "Passkey / FIDO2 multi-factor authentication. Device-facing ceremony routes need no key; server-to-server routes take the application's API key as a Bearer token; admin routes take the admin token. Every error is {\"status\", \"trace_id\", \"message\"} with the same HTTP status (409 when a request conflicts with stored data, 413 past 64 KiB of body, 408 when a body does not arrive within the body timeout, 429 with Retry-After when a caller's failed verifications or wrong keys reach the abuse limits, 503 while the database is unavailable). A request names its trace_id in the JSON body or, without a body, in the trace_id query parameter; every answer echoes it or carries a new UUID. UMFA objects use snake_case; WebAuthn objects use the W3C WebAuthn Level 3 JSON encodings unchanged (binary as base64url without padding).",
    ]

    /// How callers prove who they are (docs/contract.md §4).
    static let securitySchemes: YAMLNode = [
        "apiKey": ["type": "http", "scheme": "bearer", "description": "The application's API key"],
        "adminToken": ["type": "http", "scheme": "bearer", "description": "The admin token"],
        "loginToken": [
            "type": "http", "scheme": "bearer",
            "description":
                "A UMFA login JWT of the user (demo routes; self-service routes take one at most 5 minutes old)",
        ],
        "metricsToken": [
            "type": "http", "scheme": "bearer",
            "description": "UMFA_METRICS_TOKEN, when the server sets one (GET /metrics)",
        ],
        "bearerAccessToken": [
            "type": "http", "scheme": "bearer", "description": "An OAuth access token this issuer issued (RFC 6750)",
        ],
        "passkeysAccessToken": [
            "type": "http", "scheme": "bearer",
            "description":
                "An access token of the user's application's issuer (RFC 9068) granted the scope umfa:passkeys, whose aud is that issuer: as Bearer (RFC 6750), or, when DPoP-bound, as Authorization: DPoP with a DPoP proof of its key (RFC 9449 §7; htu without the query). Without the scope: 403 with WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"umfa:passkeys\" (RFC 6750 §3.1); a sign-in older than 5 minutes, or one without user verification: 401 insufficient_user_authentication with acr_values and max_age (RFC 9470 §3); a refused token or proof: 401 with the RFC 6750 or RFC 9449 challenge",
        ],
        "accountAccessToken": [
            "type": "http", "scheme": "bearer",
            "description":
                "An access token of the user's application's issuer (RFC 9068) granted the scope umfa:account, whose aud is that issuer, from a sign-in at most 5 minutes old (auth_time) that verified the user (acr urn:umfa:acr:passkey or more): as Bearer (RFC 6750), or, when DPoP-bound, as Authorization: DPoP with a DPoP proof of its key (RFC 9449 §7). Without the scope: 403 insufficient_scope with scope=\"umfa:account\" (RFC 6750 §3.1); an older sign-in, or one without user verification: 401 insufficient_user_authentication with acr_values and max_age (RFC 9470 §3)",
        ],
        "initialAccessToken": [
            "type": "http", "scheme": "bearer",
            "description":
                "An initial access token the admin issued, or an access token with scope dcr of a dcr_template client (RFC 7591 §3)",
        ],
        "registrationAccessToken": [
            "type": "http", "scheme": "bearer",
            "description": "The registration access token given at dynamic registration (RFC 7592)",
        ],
        "deviceProof": [
            "type": "http", "scheme": "UMFA-Device",
            "description":
                "A device proof: a JWT (typ umfa-device+jwt, ES256, htm, htu, iat, jti used once, sub = credential id) signed with the device key registered at an out-of-band enrollment",
        ],
        "flowToken": [
            "type": "http", "scheme": "DPoP",
            "description":
                "The flow token of the API-driven flow (docs/contract.md §6): an access token with scope urn:umfa:api-flow, DPoP-bound, sent as Authorization: DPoP with a DPoP proof of its key (htm, htu of the request, ath)",
        ],
        "oauthClient": [
            "type": "http", "scheme": "basic",
            "description":
                "OAuth client authentication: client_secret_basic, or client_id and client_secret in the form (client_secret_post)",
        ],
    ]

    /// The answers operations share: the error shapes (docs/contract.md §2) and the flow's media types.
    static let responses: YAMLNode = [
        "FlowStep": [
            "description": "The next step of the API-driven flow",
            "content": ["application/vnd.auth+json": ["schema": ["$ref": "#/components/schemas/FlowStep"]]],
        ],
        "FlowProblem": [
            "description":
                "A problem of the API-driven flow (RFC 9457): invalid-input, incorrect-credentials, authentication-failed, too-many-attempts, session-expired, error-authorization-response, unexpected",
            "content": ["application/problem+json": ["schema": ["$ref": "#/components/schemas/FlowProblem"]]],
        ],
        "OAuthError": [
            "description": "An RFC 6749 §5.2 error",
            "content": ["application/json": ["schema": ["$ref": "#/components/schemas/OAuthErrorResponse"]]],
        ],
        "Error": [
            "description": "An error in the documented shape",
            "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]],
        ],
        "RateLimited": [
            "description":
                "Too many failed attempts or requests from this address (docs/contract.md §4): wrong admin tokens, API keys, client credentials or device proofs, failed ceremonies, options requests. A valid credential is never limited.",
            "headers": [
                "Retry-After": [
                    "description": "Seconds until the address may try again", "schema": ["type": "integer"],
                ]
            ], "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]],
        ],
        "Unavailable": [
            "description": "The database is unavailable; try again later",
            "headers": [
                "Retry-After": ["description": "Seconds to wait before trying again", "schema": ["type": "integer"]]
            ], "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]],
        ],
    ]

    /// Contract types the document describes although no operation's declaration names them
    /// (error bodies, and bodies of written-out answers).
    static let schemaRoots: [any ContractBody.Type] = [ErrorResponse.self, OAuthErrorResponse.self]
}
