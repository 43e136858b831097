/// `GET /openapi.yaml`: the HTTP API v1, kept true by a test that compares it with the router.
enum OpenAPIDocument {
    static let yaml = """
        openapi: 3.1.0
        info:
          title: UMFA authenticator server
          version: "1"
          description: >
            Passkey / FIDO2 multi-factor authentication. Device-facing ceremony routes need no key;
            server-to-server routes take the application's API key as a Bearer token; admin routes take
            the admin token. Every error is {"status", "trace_id", "message"} with the same HTTP status
            (409 when a request conflicts with stored data, 413 past 64 KiB of body, 408 when a body does not
            arrive within the body timeout, 429 with Retry-After when a caller's failed verifications or wrong
            keys reach the abuse limits, 503 while the database is unavailable). A request names its trace_id in the JSON body or, without a body, in the
            trace_id query parameter; every answer echoes it or carries a new UUID.
        components:
          securitySchemes:
            apiKey: {type: http, scheme: bearer, description: The application's API key}
            adminToken: {type: http, scheme: bearer, description: The admin token}
            loginToken: {type: http, scheme: bearer, description: A UMFA login JWT of the user (demo routes only)}
          schemas:
            Error:
              type: object
              required: [status, trace_id, message]
              properties:
                status: {type: integer}
                trace_id: {type: string}
                message: {type: string}
            OptionsRequest:
              type: object
              required: [application_id, user_id]
              properties:
                application_id: {type: string, format: uuid}
                user_id: {type: string, minLength: 1, maxLength: 256}
                display_name: {type: string}
                enrollment_token: {type: string}
                token: {type: string}
                trace_id: {type: string}
            CeremonyResult:
              type: object
              required: [trace_id, user_id, credential_id, token]
              properties:
                trace_id: {type: string}
                user_id: {type: string}
                credential_id: {type: string}
                token: {type: string, description: RS256 login JWT}
            PublicKeyOptions:
              type: object
              required: [trace_id, publicKey]
              properties:
                trace_id: {type: string}
                publicKey: {type: object, description: W3C WebAuthn L3 options JSON}
            Application:
              type: object
              properties:
                trace_id: {type: string}
                application_id: {type: string, format: uuid}
                api_key: {type: string}
                name: {type: string}
                rp_id: {type: string}
                rp_name: {type: string}
                origins: {type: array, items: {type: string}}
                enrollment_policy: {type: string, enum: [open, grant]}
                enrollment_policy_description: {type: string}
                user_verification: {type: string, enum: [required, preferred, discouraged]}
                attestation: {type: string, enum: [none, indirect, direct, enterprise]}
                token_ttl_seconds: {type: integer}
                created_at: {type: string, format: date-time}
                attestation_policy: {type: string, enum: [any, self_or_trusted, trusted]}
                aaguid_allow: {type: array, nullable: true, items: {type: string, format: uuid}}
                aaguid_deny: {type: array, items: {type: string, format: uuid}}
          parameters:
            TraceID: {name: trace_id, in: query, required: false, schema: {type: string, maxLength: 128}}
            UserID:
              name: user_id
              in: path
              required: true
              description: The application's user id, percent-encoded (alice%40example.com)
              schema: {type: string, minLength: 1, maxLength: 256}
          responses:
            Error:
              description: An error in the documented shape
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
        paths:
          /api/umfa/registration/options:
            post:
              summary: Start a registration
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/OptionsRequest"}
              responses:
                "200":
                  description: PublicKeyCredentialCreationOptionsJSON
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/PublicKeyOptions"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
          /api/umfa/registration/verify:
            post:
              summary: Finish a registration with a RegistrationResponseJSON
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [application_id, user_id, credential]
                      properties:
                        application_id: {type: string, format: uuid}
                        user_id: {type: string}
                        credential: {type: object, description: RegistrationResponseJSON}
                        device_name: {type: string}
                        trace_id: {type: string}
              responses:
                "200":
                  description: The new credential and a login token
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/CeremonyResult"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "409": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/umfa/authentication/options:
            post:
              summary: Start a sign-in (user_id optional for discoverable credentials)
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [application_id]
                      properties:
                        application_id: {type: string, format: uuid}
                        user_id: {type: string}
                        trace_id: {type: string}
              responses:
                "200":
                  description: PublicKeyCredentialRequestOptionsJSON
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/PublicKeyOptions"}
                "400": {$ref: "#/components/responses/Error"}
          /api/umfa/authentication/verify:
            post:
              summary: Finish a sign-in with an AuthenticationResponseJSON
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [application_id, credential]
                      properties:
                        application_id: {type: string, format: uuid}
                        user_id: {type: string}
                        credential: {type: object, description: AuthenticationResponseJSON}
                        trace_id: {type: string}
              responses:
                "200":
                  description: The user and a login token
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/CeremonyResult"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/umfa/unenroll:
            post:
              summary: Remove the credential that signs a fresh challenge
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [application_id, user_id, credential]
                      properties:
                        application_id: {type: string, format: uuid}
                        user_id: {type: string}
                        credential: {type: object, description: AuthenticationResponseJSON}
                        trace_id: {type: string}
              responses:
                "200":
                  description: Removed
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, user_id, credential_id, removed]
                        properties:
                          trace_id: {type: string}
                          user_id: {type: string}
                          credential_id: {type: string}
                          removed: {type: boolean}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/umfa/validate-token:
            post:
              summary: Validate a login JWT or a credential assertion for the application's backend
              security: [{apiKey: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [application_id, user_id, token]
                      properties:
                        application_id: {type: string, format: uuid}
                        user_id: {type: string}
                        token: {description: A JWT string, or an AuthenticationResponseJSON object or string}
                        token_type: {type: string, enum: [jwt, credential]}
                        trace_id: {type: string}
              responses:
                "200":
                  description: Valid
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [user_id, trace_id]
                        properties:
                          user_id: {type: string}
                          trace_id: {type: string}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/umfa/enrollment-tokens:
            post:
              summary: Grant one registration to a user
              security: [{apiKey: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [application_id, user_id]
                      properties:
                        application_id: {type: string, format: uuid}
                        user_id: {type: string}
                        ttl_seconds: {type: integer, minimum: 1, maximum: 86400}
                        userpw_time: {type: string, format: date-time}
                        trace_id: {type: string}
              responses:
                "201":
                  description: A single-use enrollment token
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, enrollment_token, expires_at]
                        properties:
                          trace_id: {type: string}
                          enrollment_token: {type: string}
                          expires_at: {type: string, format: date-time}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/umfa/users/{user_id}/credentials:
            get:
              summary: List a user's credentials
              security: [{apiKey: []}]
              parameters:
                - {$ref: "#/components/parameters/UserID"}
                - {name: application_id, in: query, required: true, schema: {type: string, format: uuid}}
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: The credentials
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, credentials]
                        properties:
                          trace_id: {type: string}
                          credentials: {type: array, items: {type: object}}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/umfa/users/{user_id}/credentials/{credential_id}:
            delete:
              summary: Remove a user's credential
              security: [{apiKey: []}]
              parameters:
                - {$ref: "#/components/parameters/UserID"}
                - {name: credential_id, in: path, required: true, schema: {type: string}}
                - {name: application_id, in: query, required: true, schema: {type: string, format: uuid}}
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: Removed
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, removed]
                        properties:
                          trace_id: {type: string}
                          removed: {type: boolean}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/admin/applications:
            post:
              summary: Create an application
              security: [{adminToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [name, rp_id, origins]
                      properties:
                        name: {type: string}
                        rp_id: {type: string}
                        rp_name: {type: string}
                        origins: {type: array, items: {type: string}}
                        enrollment_policy: {type: string, enum: [open, grant]}
                        user_verification: {type: string, enum: [required, preferred, discouraged]}
                        attestation: {type: string, enum: [none, indirect, direct, enterprise]}
                        token_ttl_seconds: {type: integer, minimum: 30, maximum: 86400}
                        attestation_policy: {type: string, enum: [any, self_or_trusted, trusted]}
                        aaguid_allow: {type: array, items: {type: string, format: uuid}}
                        aaguid_deny: {type: array, items: {type: string, format: uuid}}
              responses:
                "201":
                  description: The application and its first API key (shown once)
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Application"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
            get:
              summary: List applications
              security: [{adminToken: []}]
              parameters:
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: The applications
                  content:
                    application/json:
                      schema:
                        type: object
                        properties:
                          trace_id: {type: string}
                          applications: {type: array, items: {$ref: "#/components/schemas/Application"}}
                "401": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/admin/applications/{id}:
            get:
              summary: Show an application
              security: [{adminToken: []}]
              parameters:
                - {name: id, in: path, required: true, schema: {type: string, format: uuid}}
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: The application
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Application"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
            patch:
              summary: Change an application's settings
              security: [{adminToken: []}]
              parameters:
                - {name: id, in: path, required: true, schema: {type: string, format: uuid}}
                - {$ref: "#/components/parameters/TraceID"}
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {type: object}
              responses:
                "200":
                  description: The application
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Application"}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/admin/applications/{id}/api-keys:
            post:
              summary: Add an API key (older keys keep working)
              security: [{adminToken: []}]
              parameters:
                - {name: id, in: path, required: true, schema: {type: string, format: uuid}}
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "201":
                  description: The new key (shown once)
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, api_key, key_id]
                        properties:
                          trace_id: {type: string}
                          api_key: {type: string}
                          key_id: {type: string}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
            get:
              summary: List an application's API keys (ids only, never the keys)
              security: [{adminToken: []}]
              parameters:
                - {name: id, in: path, required: true, schema: {type: string, format: uuid}}
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: The key ids
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, api_keys]
                        properties:
                          trace_id: {type: string}
                          api_keys:
                            type: array
                            items:
                              type: object
                              properties:
                                key_id: {type: string}
                                created_at: {type: string, format: date-time}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/admin/applications/{id}/api-keys/{key_id}:
            delete:
              summary: Revoke an API key, at once and on every instance
              security: [{adminToken: []}]
              parameters:
                - {name: id, in: path, required: true, schema: {type: string, format: uuid}}
                - {name: key_id, in: path, required: true, schema: {type: string}}
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: Revoked
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, removed]
                        properties:
                          trace_id: {type: string}
                          removed: {type: boolean}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /api/admin/signing-keys:
            post:
              summary: Rotate the token signing key (old keys keep validating their tokens)
              security: [{adminToken: []}]
              parameters:
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "201":
                  description: The new key id
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, kid]
                        properties:
                          trace_id: {type: string}
                          kid: {type: string}
                "401": {$ref: "#/components/responses/Error"}
                "429": {$ref: "#/components/responses/Error"}
          /.well-known/jwks.json:
            get:
              summary: Token signing keys, current and retired
              responses:
                "200": {description: A JWK Set, content: {application/json: {schema: {type: object}}}}
          /health:
            get:
              summary: Liveness
              parameters:
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: OK
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [status, trace_id]
                        properties:
                          status: {type: string, enum: [ok]}
                          trace_id: {type: string}
          /metrics:
            get:
              summary: Prometheus metrics
              responses:
                "200": {description: Prometheus text format, content: {text/plain: {schema: {type: string}}}}
          /openapi.yaml:
            get:
              summary: This document
              responses:
                "200": {description: OpenAPI 3.1, content: {application/yaml: {schema: {type: string}}}}
          /:
            get:
              summary: The passkey demo page (sign up, sign in, the login token, the signed-in user's passkeys)
              description: >
                Plain HTML, CSS and JavaScript from this server only (strict Content-Security-Policy). It uses
                the development application unless the address names another one with ?app=<application id>.
              responses:
                "200": {description: HTML, content: {text/html: {schema: {type: string}}}}
          /demo/demo.css:
            get:
              summary: The demo page's stylesheet, with an ETag
              responses:
                "200": {description: The file, content: {text/css: {schema: {type: string}}}}
                "304": {description: Not modified (If-None-Match)}
          /demo/demo.js:
            get:
              summary: The demo page's script, with an ETag
              responses:
                "200": {description: The file, content: {text/javascript: {schema: {type: string}}}}
                "304": {description: Not modified (If-None-Match)}
          /api/demo/validate-token:
            post:
              summary: Development only - validate-token for the development application, without an API key
              description: >
                Served only for the development application that umfa serve created on a fresh database, and
                not at all with --no-default-app. Checks a login JWT exactly as validate-token does.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [user_id, token]
                      properties:
                        application_id: {type: string, format: uuid, description: Must be the development application}
                        user_id: {type: string}
                        token: {type: string, description: A login JWT}
                        trace_id: {type: string}
              responses:
                "200":
                  description: The token is valid
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [user_id, trace_id]
                        properties:
                          user_id: {type: string}
                          trace_id: {type: string}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
          /api/demo/users/{user_id}/credentials:
            get:
              summary: Development only - the signed-in user's passkeys, authorised by that user's login token
              security: [{loginToken: []}]
              parameters:
                - {$ref: "#/components/parameters/UserID"}
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: The user's credentials, as the API-key credential listing shows them
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, credentials]
                        properties:
                          trace_id: {type: string}
                          credentials: {type: array, items: {type: object}}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
          /api/demo/users/{user_id}/credentials/{credential_id}:
            delete:
              summary: Development only - delete one of the signed-in user's passkeys, authorised by their login token
              security: [{loginToken: []}]
              parameters:
                - {$ref: "#/components/parameters/UserID"}
                - {name: credential_id, in: path, required: true, schema: {type: string}}
                - {$ref: "#/components/parameters/TraceID"}
              responses:
                "200":
                  description: Removed
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [trace_id, removed]
                        properties:
                          trace_id: {type: string}
                          removed: {type: boolean}
                "400": {$ref: "#/components/responses/Error"}
                "401": {$ref: "#/components/responses/Error"}
                "403": {$ref: "#/components/responses/Error"}
                "404": {$ref: "#/components/responses/Error"}

        """
}
