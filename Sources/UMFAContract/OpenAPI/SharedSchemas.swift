/// The schemas of `openapi.yaml` that are not made from a contract type: shared building blocks
/// (identifiers, WebAuthn extension inputs), RFC documents and forms, and the API-driven flow's
/// media types, each written out once.
enum SharedSchemas: String, CaseIterable, Sendable {
    case applicationID = "ApplicationID"
    case userID = "UserID"
    case traceID = "TraceID"
    case echoedTraceID = "EchoedTraceID"
    case credentialID = "CredentialID"
    case credentialHints = "CredentialHints"
    case prfInputs = "PRFInputs"
    case registrationPRFInputs = "RegistrationPRFInputs"
    case prfValues = "PRFValues"
    case jwksDocument = "JWKSDocument"
    case pushedAuthorizationForm = "PushedAuthorizationForm"
    case oauthTokenForm = "OAuthTokenForm"
    case oauthTokenActionForm = "OAuthTokenActionForm"
    case deviceAuthorizationForm = "DeviceAuthorizationForm"
    case backchannelAuthenticationForm = "BackchannelAuthenticationForm"
    case flowStep = "FlowStep"
    case flowAction = "FlowAction"
    case flowProblem = "FlowProblem"

    /// The schema, written out.
    var schema: YAMLNode {
        switch self {
        case .applicationID:
            ["type": "string", "format": "uuid", "description": "The application, a UUID"]
        case .userID:
            [
                "type": "string", "minLength": 1, "maxLength": 256,
                "description": "The application's opaque identifier for its user (1-256 bytes of UTF-8)",
            ]
        case .traceID:
            [
                "type": "string", "maxLength": 128,
                "description":
                    "The caller's trace id (printable ASCII, at most 128 bytes); when absent or not that, the answer carries a new UUID",
            ]
        case .echoedTraceID:
            ["type": "string", "description": "The request's trace id, echoed, or a new UUID"]
        case .credentialID:
            ["type": "string", "description": "The credential id, base64url without padding"]
        case .credentialHints:
            [
                "type": "array",
                "description":
                    "Hints for the user agent, most preferred first (WebAuthn L3 §5.4, §5.8.7), distinct; in an options request they replace the application's",
                "items": ["type": "string", "enum": ["security-key", "client-device", "hybrid"]],
            ]
        case .prfInputs:
            [
                "type": "object",
                "description":
                    "PRF extension inputs (WebAuthn L3 §10.1.4) passed on as extensions.prf; {} asks only whether the credential supports PRF. The outputs stay with the client.",
                "properties": [
                    "eval": ["$ref": "#/components/schemas/PRFValues"],
                    "evalByCredential": [
                        "type": "object",
                        "description":
                            "Sign-in only (400 at registration): inputs per credential id (base64url), at most 100; entries for credentials the options do not list are left out",
                        "additionalProperties": ["$ref": "#/components/schemas/PRFValues"],
                    ],
                ],
            ]
        case .registrationPRFInputs:
            [
                "type": "object",
                "description":
                    "PRF extension inputs for a registration (WebAuthn L3 §10.1.4), passed on as extensions.prf; {} asks only whether the new credential supports PRF (prf_enabled). evalByCredential is refused (400).",
                "properties": ["eval": ["$ref": "#/components/schemas/PRFValues"]],
            ]
        case .prfValues:
            [
                "type": "object", "required": ["first"],
                "properties": [
                    "first": ["type": "string", "description": "The first input, base64url of 1 to 256 bytes"],
                    "second": ["type": "string", "description": "The second input, base64url of 1 to 256 bytes"],
                ],
            ]
        case .jwksDocument:
            [
                "type": "object",
                "description":
                    "A JWK Set (RFC 7517): every token signing key, current and retired, of the three algorithms",
                "required": ["keys"],
                "properties": [
                    "keys": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["kty", "kid", "use", "alg"],
                            "properties": [
                                "kty": ["type": "string", "enum": ["RSA", "EC", "OKP"]],
                                "kid": ["type": "string", "description": "The key id, its RFC 7638 thumbprint"],
                                "use": ["type": "string", "enum": ["sig"]],
                                "alg": ["type": "string", "enum": ["RS256", "ES256", "EdDSA"]],
                                "n": ["type": "string", "description": "RSA: the modulus, base64url"],
                                "e": ["type": "string", "description": "RSA: the public exponent, base64url"],
                                "crv": [
                                    "type": "string", "enum": ["P-256", "Ed25519"],
                                    "description": "EC and OKP: the curve",
                                ],
                                "x": [
                                    "type": "string",
                                    "description": "EC: the x coordinate; OKP: the public key; base64url",
                                ], "y": ["type": "string", "description": "EC: the y coordinate, base64url"],
                            ],
                        ],
                    ]
                ],
            ]
        case .pushedAuthorizationForm:
            [
                "type": "object",
                "description":
                    "The authorization request's parameters (as at the authorization endpoint) and client authentication",
                "required": ["response_type", "redirect_uri", "code_challenge", "code_challenge_method"],
                "properties": [
                    "response_type": ["type": "string", "enum": ["code"]], "client_id": ["type": "string"],
                    "client_secret": ["type": "string"],
                    "client_assertion_type": [
                        "type": "string", "enum": ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
                        "description": "private_key_jwt (RFC 7523)",
                    ],
                    "client_assertion": [
                        "type": "string",
                        "description":
                            "A JWT signed with a key of the client's jwks (private_key_jwt) or an HMAC with its secret (client_secret_jwt, HS256/384/512): iss = sub = client_id, aud the token endpoint or the issuer, exp at most 3600 s ahead, jti used once",
                    ], "redirect_uri": ["type": "string"], "scope": ["type": "string"], "state": ["type": "string"],
                    "nonce": ["type": "string"], "code_challenge": ["type": "string"],
                    "code_challenge_method": ["type": "string", "enum": ["S256"]], "prompt": ["type": "string"],
                    "login_hint": ["type": "string"], "max_age": ["type": "integer"],
                ],
            ]
        case .oauthTokenForm:
            [
                "type": "object",
                "description":
                    "RFC 6749 token request (authorization_code, refresh_token, client_credentials or the RFC 8628 device_code)",
                "required": ["grant_type"],
                "properties": [
                    "grant_type": [
                        "type": "string",
                        "enum": [
                            "authorization_code", "refresh_token", "client_credentials",
                            "urn:ietf:params:oauth:grant-type:device_code",
                        ],
                    ], "code": ["type": "string", "description": "authorization_code"],
                    "device_code": ["type": "string", "description": "urn:ietf:params:oauth:grant-type:device_code"],
                    "redirect_uri": [
                        "type": "string", "description": "authorization_code, as in the authorization request",
                    ],
                    "code_verifier": [
                        "type": "string", "description": "authorization_code: the PKCE verifier (RFC 7636)",
                    ], "refresh_token": ["type": "string", "description": "refresh_token"], "scope": ["type": "string"],
                    "resource": ["type": "string", "description": "RFC 8707 resource, the access token's audience"],
                    "client_id": ["type": "string"], "client_secret": ["type": "string"],
                    "client_assertion_type": [
                        "type": "string", "enum": ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
                        "description": "private_key_jwt (RFC 7523)",
                    ],
                    "client_assertion": [
                        "type": "string",
                        "description":
                            "A JWT signed with a key of the client's jwks (private_key_jwt) or an HMAC with its secret (client_secret_jwt, HS256/384/512): iss = sub = client_id, aud the token endpoint or the issuer, exp at most 3600 s ahead, jti used once",
                    ],
                ],
            ]
        case .backchannelAuthenticationForm:
            [
                "type": "object",
                "description": "OpenID CIBA Core 1.0 §7.1 authentication request and client authentication",
                "required": ["scope"],
                "properties": [
                    "client_id": ["type": "string"], "client_secret": ["type": "string"],
                    "scope": ["type": "string", "description": "Must hold openid; of the client's scopes"],
                    "login_hint": ["type": "string", "description": "The user id, or a verified email address"],
                    "id_token_hint": ["type": "string", "description": "An ID token this issuer gave the client"],
                    "login_hint_token": ["type": "string", "description": "A login token of the application"],
                    "binding_message": [
                        "type": "string", "maxLength": 128,
                        "description": "Shown on the device and signed with the decision",
                    ],
                    "client_notification_token": [
                        "type": "string", "maxLength": 1024,
                        "description": "Ping mode: the bearer token the notification carries (required)",
                    ],
                    "requested_expiry": [
                        "type": "integer", "description": "Seconds; honoured from 60 to 600 (default 300)",
                    ],
                    "acr_values": ["type": "string", "description": "The levels asked for, as at authorization"],
                    "authorization_details": [
                        "type": "string", "description": "RFC 9396: a JSON array of the application's declared types",
                    ],
                    "user_code": ["type": "string", "description": "Not supported: refused"],
                    "client_assertion_type": [
                        "type": "string", "enum": ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
                        "description": "private_key_jwt (RFC 7523)",
                    ],
                    "client_assertion": ["type": "string", "description": "As at the token endpoint"],
                ],
            ]
        case .deviceAuthorizationForm:
            [
                "type": "object", "description": "RFC 8628 §3.1 device authorization request and client authentication",
                "properties": [
                    "client_id": ["type": "string"], "client_secret": ["type": "string"],
                    "scope": ["type": "string", "description": "Of the client's scopes; none asks for all of them"],
                    "client_assertion_type": [
                        "type": "string", "enum": ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
                        "description": "private_key_jwt (RFC 7523)",
                    ],
                    "client_assertion": ["type": "string", "description": "As at the token endpoint"],
                ],
            ]
        case .oauthTokenActionForm:
            [
                "type": "object", "description": "RFC 7662 introspection or RFC 7009 revocation request",
                "required": ["token"],
                "properties": [
                    "token": ["type": "string"], "token_type_hint": ["type": "string"], "client_id": ["type": "string"],
                    "client_secret": ["type": "string"],
                    "client_assertion_type": [
                        "type": "string", "enum": ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
                        "description": "private_key_jwt (RFC 7523)",
                    ],
                    "client_assertion": [
                        "type": "string",
                        "description":
                            "A JWT signed with a key of the client's jwks (private_key_jwt) or an HMAC with its secret (client_secret_jwt, HS256/384/512): iss = sub = client_id, aud the token endpoint or the issuer, exp at most 3600 s ahead, jti used once",
                    ],
                ],
            ]
        case .flowStep:
            [
                "type": "object", "required": ["type", "actions", "links", "messages", "properties"],
                "properties": [
                    "type": [
                        "type": "string",
                        "enum": [
                            "authentication-step", "registration-step", "user-consent-step", "polling-step",
                            "redirection-step", "continue-same-step", "oauth-authorization-response",
                        ],
                    ], "actions": ["type": "array", "items": ["$ref": "#/components/schemas/FlowAction"]],
                    "links": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["href", "rel"],
                            "properties": [
                                "href": ["type": "string"], "rel": ["type": "string"], "title": ["type": "string"],
                            ],
                        ],
                    ],
                    "messages": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["text", "classList"],
                            "properties": [
                                "text": ["type": "string"],
                                "classList": ["type": "array", "items": ["type": "string"]],
                            ],
                        ],
                    ],
                    "properties": [
                        "type": "object",
                        "description":
                            "polling-step: status (pending, done, failed), qrCode, appLinkUri, matchingNumber, interval; user-consent-step: clientName, scopes; oauth-authorization-response: code, state, iss",
                    ], "metadata": ["type": "object", "properties": ["viewName": ["type": "string"]]],
                ],
            ]
        case .flowAction:
            [
                "type": "object", "required": ["template", "kind", "model"],
                "properties": [
                    "template": ["type": "string", "enum": ["form", "selector", "client-operation"]],
                    "kind": [
                        "type": "string",
                        "description":
                            "passkey-sign-in, create-account, approve-on-another-device, webauthn-authentication, webauthn-registration, poll, cancel, continue, restart, consent-allow, consent-deny",
                    ], "title": ["type": "string"], "properties": ["type": "object"],
                    "model": [
                        "type": "object",
                        "description":
                            "form: href, method, type, actionTitle, fields [{type, name, label, value, required}]; selector: options [FlowAction]; client-operation: name, arguments (credentialCreationOptions.publicKey or credentialRequestOptions.publicKey, W3C JSON), continueActions, errorActions",
                    ],
                ],
            ]
        case .flowProblem:
            [
                "type": "object", "required": ["type", "title"],
                "properties": [
                    "type": [
                        "type": "string",
                        "enum": [
                            "urn:umfa:problem:invalid-input", "urn:umfa:problem:incorrect-credentials",
                            "urn:umfa:problem:authentication-failed", "urn:umfa:problem:too-many-attempts",
                            "urn:umfa:problem:session-expired", "urn:umfa:problem:unexpected",
                            "urn:umfa:problem:error-authorization-response",
                        ],
                    ], "title": ["type": "string"], "messages": ["type": "array", "items": ["type": "object"]],
                    "invalidFields": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["name", "reason"],
                            "properties": [
                                "name": ["type": "string"],
                                "reason": ["type": "string", "enum": ["missing", "invalidValue"]],
                                "detail": ["type": "string"],
                            ],
                        ],
                    ], "error": ["type": "string"], "error_description": ["type": "string"],
                    "trace_id": ["type": "string"],
                ],
            ]
        }
    }
}
