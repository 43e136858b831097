import Foundation

/// The claims of a UMFA login token (docs/contract.md §2).
package struct LoginTokenClaims: Codable, Sendable, Equatable {
    /// The issuer, `UMFA::Authenticator` by default.
    package var iss: String
    /// Always `UMFA_login`.
    package var sub: String
    /// The issuer and the application id.
    package var aud: [String]
    /// Issued at, seconds since 1970.
    package var iat: Int64
    /// Expiry, seconds since 1970.
    package var exp: Int64
    /// A unique token id.
    package var jti: String
    /// The application's user id.
    package var userID: String
    /// The application the token was issued for.
    package var applicationID: String
    /// The credential that signed in, base64url.
    package var credentialID: String
    /// When the WebAuthn ceremony completed, RFC 3339 UTC with fractional seconds.
    package var webauthnTime: String
    /// When the application last checked the user's password, if known.
    package var userpwTime: String?
    /// Authentication method references (RFC 8176).
    package var amr: [String]
    /// The authentication context class the sign-in reached (OpenID Connect Core §2), one of
    /// UMFA's levels (docs/oidc-provider.md); absent in tokens issued before it was written.
    package var acr: String?

    /// Creates the claims of a login token.
    package init(
        iss: String, sub: String, aud: [String], iat: Int64, exp: Int64, jti: String, userID: String,
        applicationID: String, credentialID: String, webauthnTime: String, userpwTime: String?, amr: [String],
        acr: String? = nil
    ) {
        self.acr = acr
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.userID = userID
        self.applicationID = applicationID
        self.credentialID = credentialID
        self.webauthnTime = webauthnTime
        self.userpwTime = userpwTime
        self.amr = amr
    }

    /// The `sub` of every login token.
    package static let subject = "UMFA_login"

    /// The JSON names of the claims, shared by ``ReceivedLoginClaims`` and
    /// ``LoginClaimsFastPath``.
    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, jti, amr, acr
        case userID = "user_id"
        case applicationID = "application_id"
        case credentialID = "credential_id"
        case webauthnTime = "webauthn_time"
        case userpwTime = "userpw_time"
    }
}

/// The claims as they arrive for validation: everything optional, so a missing claim is
/// reported by name instead of as a decoding failure. ``LoginClaimsFastPath`` reads the shape
/// this server writes; `JSONDecoder` reads any other.
struct ReceivedLoginClaims: Codable, Sendable, Equatable {
    var iss: String?
    var sub: String?
    var aud: AudienceValue?
    var iat: Double?
    var exp: Double?
    var userID: String?
    var applicationID: String?
    var webauthnTime: String?
    var jti: String?
    var credentialID: String?
    var userpwTime: String?
    var amr: [String]?
    var acr: String?

    /// The same JSON names as the claims this server issues.
    typealias CodingKeys = LoginTokenClaims.CodingKeys

    /// The claims as a ``LoginTokenClaims`` when every claim one of our tokens carries is
    /// present, read from the one decoding the signature check already did.
    var loginClaims: LoginTokenClaims? {
        guard let iss, let sub, let aud, let iat, let exp, let jti, let userID, let applicationID, let credentialID,
            let webauthnTime, let amr
        else { return nil }
        return LoginTokenClaims(
            iss: iss, sub: sub, aud: aud.values, iat: Int64(iat), exp: Int64(exp), jti: jti, userID: userID,
            applicationID: applicationID, credentialID: credentialID, webauthnTime: webauthnTime,
            userpwTime: userpwTime, amr: amr, acr: acr)
    }

    /// `aud` may be a string or an array of strings (RFC 7519 §4.1.3).
    struct AudienceValue: Codable, Equatable {
        let values: [String]

        init(values: [String]) {
            self.values = values
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let single = try? container.decode(String.self) {
                values = [single]
            } else {
                values = try container.decode([String].self)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(values)
        }
    }
}
