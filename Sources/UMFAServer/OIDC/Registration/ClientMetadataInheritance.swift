import Foundation
import UMFAContract
import UMFAStorage

/// How a client registered from a template (RFC 7591 `software_id`, or the template's own `dcr`
/// token) may differ from the template: one rule for each member of ``ClientMetadata`` (a client's
/// settings), and one check over them (``check(_:against:)``), applied at registration and at
/// every RFC 7592 `PUT` (docs/oidc-provider.md, "Dynamic client registration").
///
/// A protection of the template is inherited when the request leaves it out and may only be
/// tightened: a request that loosens one is refused with `invalid_client_metadata` (RFC 7591
/// §3.2.2). The template's credentials ship inside apps, so whoever holds them must not get a
/// client the template's owner would not have made. ``rule(for:)`` switches over every member
/// without a default, so a setting added to ``ClientMetadata`` does not compile until it has a
/// rule: the next protection is inherited without anyone having to remember it. A client's
/// identity and secrets are not settings: no request sets them, and no template lends them.
enum ClientMetadataInheritance {
    /// How a derived client may change one setting.
    enum Rule: Sendable {
        /// The client's own: the request chooses it (its name, redirect URIs, keys).
        case own
        /// Set by the server, never from the request nor copied from the template (origin,
        /// first-party status, template flag), or derived from other settings.
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

        /// A flag of the settings document read directly (absent is `false`): a new protection
        /// needs no property of its own on ``OAuthClientRecord``.
        static func flag(_ keyPath: WritableKeyPath<OAuthClientRecord, Bool?> & Sendable) -> Tightening {
            by(keyPath) { client, template in client == true || template != true }
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

    /// How a derived client may change `member`.
    static func rule(for member: ClientMetadata.Member) -> Rule {
        switch member {
        case .clientName, .redirectURIs, .postLogoutRedirectURIs, .jwks: .own
        // Where the client hears of logouts, and whether it needs sid: its own endpoint's affair.
        case .backchannelLogoutURI, .backchannelLogoutSessionRequired: .own
        // Where the client itself is told of its CIBA requests.
        case .backchannelTokenDeliveryMode, .backchannelClientNotificationEndpoint: .own
        // Which certificate a tls_client_auth client presents; the method itself is a protection.
        case .tlsClientAuthSubjectDN, .tlsClientAuthSANDNS, .tlsClientAuthSANURI, .tlsClientAuthSANIP,
            .tlsClientAuthSANEmail:
            .own
        // Follows grant_types (`code` exactly with authorization_code).
        case .responseTypes: .server
        // Decided from the template and the redirect URIs (``ClientRegistrationRules/isFirstParty``).
        case .firstParty: .server
        case .dcrTemplate, .softwareID: .server
        case .grantTypes: .tightenOnly(.subset(\.grantTypes))
        case .tokenEndpointAuthMethod: .tightenOnly(.by(\.authenticationMethod) { strength($0) >= strength($1) })
        // A scope no self-registered client holds is not inherited (``ClientRegistrationRules``).
        case .scope:
            .tightenOnly(.subset(\.scopes) { $0.filter { !ClientRegistrationRules.isFirstPartyOnly($0) } })
        case .accessTokenTTLSeconds: .tightenOnly(.atMost(\.accessTokenTTLSeconds))
        case .refreshTokenTTLSeconds: .tightenOnly(.atMost(\.refreshTokenTTLSeconds))
        case .requirePushedAuthorizationRequests: .tightenOnly(.flag(\.requirePushedAuthorizationRequests))
        case .dpopBoundAccessTokens: .tightenOnly(.flag(\.dpopBoundAccessTokens))
        case .attestationRequired: .tightenOnly(.flag(\.attestationRequired))
        case .tlsClientCertificateBoundAccessTokens: .tightenOnly(.flag(\.tlsCertificateBoundAccessTokens))
        case .requireSignedRequestObject: .tightenOnly(.flag(\.requireSignedRequestObject))
        // Public subjects let clients correlate users; pairwise ones do not.
        case .subjectType: .tightenOnly(.flag(\.pairwiseSubjects))
        // The document that lists the client's own redirect URIs.
        case .sectorIdentifierURI: .own
        }
    }

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
        for member in ClientMetadata.Member.allCases {
            if case .tightenOnly(let tightening) = rule(for: member) { tightening.inherit(&client, template) }
        }
        return client
    }

    /// The rule: each protection of `client` at least as tight as `template`'s, else
    /// `invalid_client_metadata` naming the member (RFC 7591 §3.2.2, RFC 7592 §2.2).
    static func check(_ client: OAuthClientRecord, against template: OAuthClientRecord) throws {
        for member in ClientMetadata.Member.allCases {
            guard case .tightenOnly(let tightening) = rule(for: member), !tightening.holds(client, template) else {
                continue
            }
            throw OAuthError(
                code: .invalidClientMetadata,
                "\(member.stringValue) may only tighten what the template \(template.clientID) allows, never loosen it")
        }
    }
}
