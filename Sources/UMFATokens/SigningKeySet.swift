import Crypto
import Foundation
import Synchronization
import UMFAEncoding
import UMFAStorage
import _CryptoExtras

/// The signing keys as loaded at one moment: immutable, so any number of requests sign and
/// verify with it at once.
///
/// Signing went through an actor before (jwt-kit's `JWTKeyCollection`), which made every
/// RSA-2048 signature in the server wait for the one before it: one core's worth of signatures,
/// however many cores the server has.
struct SigningKeySet: Sendable {
    /// One key, with its encoded protected header ready.
    struct Key: Sendable {
        let kid: String
        let privateKey: _RSA.Signing.PrivateKey
        /// Its public half, derived once rather than for every token checked.
        let publicKey: _RSA.Signing.PublicKey
        /// `BASE64URL(UTF8({"alg":"RS256","iss":…,"kid":…,"typ":"JWT"}))`.
        let encodedHeader: String
        /// When it stopped signing; `nil` while it is current.
        var retiredAt: Date? = nil
    }

    let keys: [String: Key]
    /// The key new tokens are signed with.
    let currentKID: String?
    let loadedAt: ContinuousClock.Instant

    static let empty = SigningKeySet(keys: [:], currentKID: nil, loadedAt: .now)

    /// Opens the sealed private keys of `records`.
    init(records: [SigningKeyRecord], masterKey: MasterKey, issuer: String) throws {
        var keys: [String: Key] = [:]
        for record in records {
            let der = try masterKey.open(record.sealedPrivateKey, context: "signing-key:" + record.kid)
            let header = LoginTokenHeader(alg: "RS256", iss: issuer, kid: record.kid, typ: "JWT", crit: nil)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let privateKey = try _RSA.Signing.PrivateKey(derRepresentation: der)
            keys[record.kid] = Key(
                kid: record.kid, privateKey: privateKey, publicKey: privateKey.publicKey,
                encodedHeader: Base64URLText.encode(try encoder.encode(header)), retiredAt: record.retiredAt)
        }
        self.init(
            keys: keys, currentKID: records.first { $0.retiredAt == nil }?.kid ?? records.first?.kid,
            loadedAt: .now)
    }

    init(keys: [String: Key], currentKID: String?, loadedAt: ContinuousClock.Instant) {
        self.keys = keys
        self.currentKID = currentKID
        self.loadedAt = loadedAt
    }

    /// The same keys, counted as loaded now.
    func refreshed() -> SigningKeySet { SigningKeySet(keys: keys, currentKID: currentKID, loadedAt: .now) }
}

/// The protected header of a login token.
struct LoginTokenHeader: Codable {
    let alg: String?
    let iss: String?
    let kid: String?
    let typ: String?
    /// Extensions the recipient must understand (RFC 7515 §4.1.11); UMFA understands none.
    let crit: [String]?
}

/// Login tokens in JWS compact serialisation (RFC 7515 §7.1) with RS256 (RFC 7518 §3.3:
/// RSASSA-PKCS1-v1_5 over SHA-256 of the ASCII `BASE64URL(header) . BASE64URL(payload)`).
enum LoginTokenJWS {
    /// Signs `claims` with `key`, under the key's login-token header or `encodedHeader`.
    static func sign(_ claims: some Encodable, key: SigningKeySet.Key, encodedHeader: String? = nil) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let signingInput =
            (encodedHeader ?? key.encodedHeader) + "." + Base64URLText.encode(try encoder.encode(claims))
        let signature = try key.privateKey.signature(
            for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URLText.encode(signature.rawRepresentation)
    }

    /// A token split into its parts; `nil` when it is not three base64url parts.
    struct Parts {
        let header: LoginTokenHeader
        let signingInput: Data
        let payload: Data
        let signature: Data
    }

    /// Splits `token` and decodes its parts, each in its one canonical spelling
    /// (``CompactJWSParts``); the header as JSON.
    static func parts(of token: String) -> Parts? {
        guard let parts = try? CompactJWSParts(token, canonical: true),
            let header = try? JSONDecoder().decode(LoginTokenHeader.self, from: Data(parts.header))
        else { return nil }
        return Parts(
            header: header, signingInput: Data(parts.signingInput), payload: Data(parts.payload),
            signature: Data(parts.signature))
    }

    /// Whether `parts`' signature verifies with `key`'s public half.
    static func isSigned(_ parts: Parts, by key: SigningKeySet.Key) -> Bool {
        let signature = _RSA.Signing.RSASignature(rawRepresentation: parts.signature)
        return key.publicKey.isValidSignature(
            signature, for: SHA256.hash(data: parts.signingInput), padding: .insecurePKCS1v1_5)
    }
}
