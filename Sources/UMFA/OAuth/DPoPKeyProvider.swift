import Crypto
import Foundation
import UMFAEncoding
import UMFAJOSE

/// The key that DPoP proofs (RFC 9449) are signed with, wherever it lives: the SDK's software
/// P-256 key (``DPoPKey``, the default), a Secure Enclave key, a hardware-backed Android key.
///
/// The SDK writes each proof's header and claims; the provider signs the JWS signing input and
/// names its public key. An adapter for the Secure Enclave wraps CryptoKit's
/// `SecureEnclave.P256.Signing.PrivateKey`: `publicJWK` from its `publicKey.rawRepresentation`
/// (`x` the first 32 bytes, `y` the last 32, base64url), `sign` returning
/// `Array(try key.signature(for: signingInput).rawRepresentation)` (docs/sdk.md, "Accounts through the API-driven flow").
public protocol DPoPKeyProvider: Sendable {
    /// The JWS `alg` of the signatures (RFC 7518 §3.1): `ES256`, `EdDSA` or `RS256`, one of the
    /// issuer's `dpop_signing_alg_values_supported`.
    var algorithm: String { get }

    /// The public key as a JWK (RFC 7517) without private members: `kty`, `crv`, `x`, `y` for
    /// P-256; `kty`, `crv`, `x` for Ed25519; `kty`, `n`, `e` for RSA.
    var publicJWK: [String: String] { get }

    /// The JWS signature over `signingInput`, `ASCII(BASE64URL(header) || '.' || BASE64URL(payload))`
    /// (RFC 7515 §5.1): for ES256 the 64-byte `R ‖ S` (RFC 7518 §3.4), never DER.
    func sign(_ signingInput: [UInt8]) async throws -> [UInt8]
}

extension DPoPKeyProvider {
    /// The RFC 7638 thumbprint of the public key, as `cnf.jkt` of a bound token names it.
    public var thumbprint: String { JWKThumbprint.compute(jwk) }

    var jwk: JWK {
        let members = publicJWK
        return JWK(
            kty: members["kty"], crv: members["crv"], x: members["x"], y: members["y"], n: members["n"],
            e: members["e"])
    }

    /// A proof for a request of `method` to `url` (RFC 9449 §4.2): `htu` without query and
    /// fragment, `ath` when an access token goes with it, `nonce` when the server gave one.
    public func proof(method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, now: Date = Date())
        async throws(ZSMError) -> String
    {
        // Step 1 (RFC 9449 §4.2): the header names the type and carries the public key.
        let header = JWSHeader(alg: algorithm, typ: "dpop+jwt", jwk: jwk)
        // Step 2: jti, htm, htu, iat; ath with an access token (§4.2), nonce when given (§8).
        let claims = JWTClaims(
            iat: now.timeIntervalSince1970.rounded(.down), jti: UUID().uuidString.lowercased(), htm: method,
            htu: DeviceSigningKeys.htu(url),
            ath: accessToken.map { Base64URL.encode(Array(SHA256.hash(data: Array($0.utf8)))) }, nonce: nonce)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encodedHeader: String
        let payload: Data
        do {
            encodedHeader = Base64URL.encode(try encoder.encode(header))
            payload = try encoder.encode(claims)
        } catch {
            throw ZSMError(.keyStoreDamaged, "a DPoP proof could not be encoded")
        }
        // Step 3: the provider signs the signing input.
        let signingInput = Array((encodedHeader + "." + Base64URL.encode(payload)).utf8)
        let signature: [UInt8]
        do {
            signature = try await sign(signingInput)
        } catch {
            throw ZSMError(.keyStoreDamaged, "the DPoP key could not sign a proof", recovery: .retry)
        }
        return encodedHeader + "." + Base64URL.encode(payload) + "." + Base64URL.encode(signature)
    }
}
