import UMFAJOSE

/// The JWS algorithm an application's tokens are signed with (RFC 7518 §3.3, §3.4; RFC 8037).
package enum TokenSigningAlgorithm: String, Sendable, Codable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 over an RSA-2048 key: the default the UMFA documentation fixes.
    case rs256 = "RS256"
    /// ECDSA over P-256 with SHA-256.
    case es256 = "ES256"
    /// Ed25519.
    case edDSA = "EdDSA"

    /// The JWS algorithm of the same name.
    package var jws: JWSAlgorithm {
        switch self {
        case .rs256: .rs256
        case .es256: .es256
        case .edDSA: .edDSA
        }
    }
}
