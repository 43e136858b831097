/// The JWS algorithms UMFA signs or verifies with (RFC 7518 §3.1, RFC 8037 §3.1).
package enum JWSAlgorithm: String, Sendable, Codable, CaseIterable {
    /// ECDSA with P-256 and SHA-256, the signature `R ‖ S` (RFC 7518 §3.4).
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
    case rs256 = "RS256"
    /// Ed25519 over the signing input itself (RFC 8037 §3.1).
    case edDSA = "EdDSA"
    /// HMAC with SHA-256 (RFC 7518 §3.2), as `client_secret_jwt` uses it.
    case hs256 = "HS256"
    /// HMAC with SHA-384.
    case hs384 = "HS384"
    /// HMAC with SHA-512.
    case hs512 = "HS512"

    /// The asymmetric algorithms, in the order UMFA names them (DPoP proofs, client keys, tokens).
    package static let asymmetric: [JWSAlgorithm] = [.es256, .rs256, .edDSA]
    /// The HMAC algorithms `client_secret_jwt` takes.
    package static let hmac: [JWSAlgorithm] = [.hs256, .hs384, .hs512]
}
