import Foundation
import UMFAStorage

/// How a client registered from a template (RFC 7591 `software_id`, or the template's own `dcr`
/// token) may differ from the template: one entry for each stored setting of
/// ``OAuthClientRecord``, and one rule over them (``check(_:against:)``), applied at
/// registration and at every RFC 7592 `PUT` (docs/oidc-provider.md, "Dynamic client
/// registration").
///
/// A protection of the template is inherited when the request leaves it out and may only be
/// tightened: a request that loosens one is refused with `invalid_client_metadata` (RFC 7591
/// §3.2.2). The template's credentials ship inside apps, so whoever holds them must not get a
/// client the template's owner would not have made. A setting added to the client model needs
/// an entry here, or the test that walks ``fields`` against the model fails: the next
/// protection is inherited without anyone having to remember it.
enum ClientMetadataInheritance {
    /// How a derived client may change one setting.
    enum Rule: Sendable {
        /// The client's own: the request chooses it (its name, redirect URIs, keys).
        case own
        /// Set by the server, never from the request nor copied from the template (identity,
        /// secrets, registration token, origin, first-party status, template flag), or derived
        /// from other settings.
        case server
        /// A protection: the template's value unless the request gives one at least as tight.
        case tightenOnly(Tightening)
    }

    /// A protection's order: how to copy the template's value, and whether a value is at
    /// least as tight as the template's.
    struct Tightening: Sendable {
        /// Copies the template's value into a client.
        let inherit: @Sendable (inout OAuthClientRecord, OAuthClientRecord) -> Void
        /// Whether the client's value is at least as tight as the template's.
        let holds: @Sendable (OAuthClientRecord, OAuthClientRecord) -> Bool

        /// The setting at `keyPath`, ordered by `isAtLeastAsTight(client's, template's)`, copied
        /// through `inherited` (the template's value by default).
        static func by<Value: Sendable>(
            _ keyPath: WritableKeyPath<OAuthClientRecord, Value> & Sendable,
            inherited: @escaping @Sendable (Value) -> Value = { $0 },
            _ isAtLeastAsTight: @escaping @Sendable (Value, Value) -> Bool
        ) -> Tightening {
            Tightening(
                inherit: { client, template in client[keyPath: keyPath] = inherited(template[keyPath: keyPath]) },
                holds: { client, template in isAtLeastAsTight(client[keyPath: keyPath], template[keyPath: keyPath]) })
        }

        /// A flag whose `true` is the protection (`false` may become `true`, never back).
        static func flag(_ keyPath: WritableKeyPath<OAuthClientRecord, Bool> & Sendable) -> Tightening {
            by(keyPath) { client, template in client || !template }
        }

        /// A list the client may narrow: each of its entries one of the template's.
        static func subset(
            _ keyPath: WritableKeyPath<OAuthClientRecord, [String]> & Sendable,
            inherited: @escaping @Sendable ([String]) -> [String] = { $0 }
        ) -> Tightening {
            by(keyPath, inherited: inherited) { client, template in Set(client).isSubset(of: template) }
        }

        /// A lifetime the client may shorten.
        static func atMost(_ keyPath: WritableKeyPath<OAuthClientRecord, Int> & Sendable) -> Tightening {
            by(keyPath) { client, template in client <= template }
        }
    }

    /// One stored setting of ``OAuthClientRecord``.
    struct Field: Sendable {
        /// The property's name in ``OAuthClientRecord``.
        let property: String
        /// The RFC 7591 member a refusal names.
        let member: String
        let rule: Rule
    }

    /// Every stored setting of a client and its rule.
    static let fields: [Field] = [
        Field(property: "clientID", member: "client_id", rule: .server),
        Field(property: "applicationID", member: "application_id", rule: .server),
        Field(property: "name", member: "client_name", rule: .own),
        Field(property: "secretHash", member: "client_secret", rule: .server),
        Field(property: "redirectURIs", member: "redirect_uris", rule: .own),
        Field(property: "grantTypes", member: "grant_types", rule: .tightenOnly(.subset(\.grantTypes))),
        // Follows grant_types (`code` exactly with authorization_code).
        Field(property: "responseTypes", member: "response_types", rule: .server),
        Field(
            property: "authenticationMethod", member: "token_endpoint_auth_method",
            rule: .tightenOnly(.by(\.authenticationMethod) { strength($0) >= strength($1) })),
        // A scope no self-registered client holds is not inherited (``ClientRegistrationRules``).
        Field(
            property: "scopes", member: "scope",
            rule: .tightenOnly(.subset(\.scopes) { $0.filter { !ClientRegistrationRules.isFirstPartyOnly($0) } })),
        Field(property: "postLogoutRedirectURIs", member: "post_logout_redirect_uris", rule: .own),
        // Decided from the template and the redirect URIs (``ClientRegistrationRules/isFirstParty``).
        Field(property: "firstParty", member: "first_party", rule: .server),
        Field(
            property: "accessTokenTTLSeconds", member: "access_token_ttl_seconds",
            rule: .tightenOnly(.atMost(\.accessTokenTTLSeconds))),
        Field(
            property: "refreshTokenTTLSeconds", member: "refresh_token_ttl_seconds",
            rule: .tightenOnly(.atMost(\.refreshTokenTTLSeconds))),
        Field(property: "createdAt", member: "client_id_issued_at", rule: .server),
        Field(
            property: "requirePushedAuthorizationRequests", member: "require_pushed_authorization_requests",
            rule: .tightenOnly(.flag(\.requirePushedAuthorizationRequests))),
        Field(
            property: "dpopBoundAccessTokens", member: "dpop_bound_access_tokens",
            rule: .tightenOnly(.flag(\.dpopBoundAccessTokens))),
        Field(property: "jwks", member: "jwks", rule: .own),
        Field(property: "sealedSecret", member: "client_secret", rule: .server),
        Field(property: "dcrTemplate", member: "dcr_template", rule: .server),
        Field(property: "softwareID", member: "software_id", rule: .server),
        Field(property: "registrationTokenHash", member: "registration_access_token", rule: .server),
        Field(
            property: "attestationRequired", member: "attestation_required",
            rule: .tightenOnly(.flag(\.attestationRequired))),
        // Which certificate a tls_client_auth client presents; the method itself is a protection.
        Field(property: "tlsClientAuthSubject", member: "tls_client_auth_subject_dn", rule: .own),
        Field(
            property: "tlsCertificateBoundAccessTokens", member: "tls_client_certificate_bound_access_tokens",
            rule: .tightenOnly(.flag(\.tlsCertificateBoundAccessTokens))),
    ]

    /// How strongly a method proves the client: none, a shared secret sent as it is, an HMAC
    /// with the secret (the secret never travels), a private key or certificate.
    static func strength(_ method: ClientAuthenticationMethod) -> Int {
        switch method {
        case .none: 0
        case .clientSecretBasic, .clientSecretPost: 1
        case .clientSecretJWT: 2
        case .privateKeyJWT, .tlsClientAuth, .selfSignedTLSClientAuth: 3
        }
    }

    /// `client` with every protection of `template` copied: the starting point a derived
    /// client's request is applied to, so that a member it leaves out is the template's.
    static func inherit(_ template: OAuthClientRecord, into client: OAuthClientRecord) -> OAuthClientRecord {
        var client = client
        for field in fields {
            if case .tightenOnly(let tightening) = field.rule { tightening.inherit(&client, template) }
        }
        return client
    }

    /// The rule: each protection of `client` at least as tight as `template`'s, else
    /// `invalid_client_metadata` naming the member (RFC 7591 §3.2.2, RFC 7592 §2.2).
    static func check(_ client: OAuthClientRecord, against template: OAuthClientRecord) throws {
        for field in fields {
            guard case .tightenOnly(let tightening) = field.rule, !tightening.holds(client, template) else { continue }
            throw OAuthError(
                code: .invalidClientMetadata,
                "\(field.member) may only tighten what the template \(template.clientID) allows, never loosen it")
        }
    }
}
