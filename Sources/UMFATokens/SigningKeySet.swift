import Crypto
import Foundation
import Synchronization
import UMFAEncoding
import UMFAJOSE

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
        /// Its private and public halves; its algorithm.
        let material: TokenKeyMaterial
        /// `BASE64URL(UTF8({"alg":…,"iss":…,"kid":…,"typ":"JWT"}))`.
        let encodedHeader: String
        /// The header of the other JWTs it signs, `{"alg":…,"kid":…,"typ":type}` encoded, by
        /// type, for the types ``typedHeaderTypes`` names.
        var typedHeaders: [String: String] = [:]
        /// When it stopped signing; `nil` while it is current.
        var retiredAt: Date? = nil

        var algorithm: TokenSigningAlgorithm { material.algorithm }
    }

    let keys: [String: Key]
    /// Each key's protected header, by its exact bytes: a token that carries one of them is
    /// read without parsing its header's JSON.
    let headers: [[UInt8]: JWSHeader]
    /// The key new tokens of each algorithm are signed with.
    let currentKIDs: [TokenSigningAlgorithm: String]
    let loadedAt: ContinuousClock.Instant

    static let empty = SigningKeySet(keys: [:], currentKIDs: [:], loadedAt: .now)

    /// Opens the sealed private keys of `records` (newest first); a record of an algorithm this
    /// server does not know is left out.
    init(records: [SigningKeyRecord], masterKey: MasterKey, issuer: String, hsm: PKCS11Keys? = nil) throws {
        var keys: [String: Key] = [:]
        var headers: [[UInt8]: JWSHeader] = [:]
        var current: [TokenSigningAlgorithm: String] = [:]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for record in records {
            guard let algorithm = TokenSigningAlgorithm(rawValue: record.algorithm) else { continue }
            let bytes = try masterKey.open(
                record.sealedPrivateKey, context: TokenService.sealingContext(kid: record.kid))
            let header = JWSHeader(algorithm: algorithm.jws, typ: "JWT", kid: record.kid, iss: issuer)
            let headerBytes = [UInt8](try encoder.encode(header))
            headers[headerBytes] = header
            keys[record.kid] = Key(
                kid: record.kid,
                material: try Self.material(algorithm, privateKeyBytes: bytes, publicKey: record.publicKey, hsm: hsm),
                encodedHeader: Base64URLText.encode(Data(headerBytes)),
                typedHeaders: try Dictionary(
                    uniqueKeysWithValues: Self.typedHeaderTypes.map {
                        ($0, try Self.encodedTypedHeader(algorithm: algorithm, kid: record.kid, type: $0))
                    }), retiredAt: record.retiredAt)
            if record.retiredAt == nil, current[algorithm] == nil { current[algorithm] = record.kid }
        }
        // An algorithm whose keys are all retired (rotation interrupted) signs with its newest.
        for record in records {
            guard let algorithm = TokenSigningAlgorithm(rawValue: record.algorithm), current[algorithm] == nil
            else { continue }
            current[algorithm] = record.kid
        }
        self.init(keys: keys, headers: headers, currentKIDs: current, loadedAt: .now)
    }

    init(
        keys: [String: Key], headers: [[UInt8]: JWSHeader] = [:],
        currentKIDs: [TokenSigningAlgorithm: String], loadedAt: ContinuousClock.Instant
    ) {
        self.keys = keys
        self.headers = headers
        self.currentKIDs = currentKIDs
        self.loadedAt = loadedAt
    }

    /// A stored key's material: its private half, or, for a key in a PKCS #11 token, the token's.
    static func material(
        _ algorithm: TokenSigningAlgorithm, privateKeyBytes bytes: [UInt8], publicKey: [UInt8], hsm: PKCS11Keys?
    ) throws -> TokenKeyMaterial {
        guard TokenKeyMaterial.isHSMReference(bytes, algorithm: algorithm) else {
            return try TokenKeyMaterial(algorithm: algorithm, privateKeyBytes: bytes)
        }
        // Without a module the key still checks signatures; signing with it fails then, and a
        // start whose current key it is stops (TokenService.loadKeys).
        let uri = try PKCS11URI(String(decoding: bytes, as: UTF8.self))
        return try TokenKeyMaterial(hsm: uri, algorithm: algorithm, keys: hsm, publicKeyBytes: publicKey)
    }

    /// The JWT types whose headers each key keeps encoded: OAuth access tokens and ID tokens.
    static let typedHeaderTypes = JWTType.all

    /// `BASE64URL(UTF8({"alg":…,"kid":…,"typ":type}))`, the keys sorted.
    static func encodedTypedHeader(algorithm: TokenSigningAlgorithm, kid: String, type: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = JWSHeader(algorithm: algorithm.jws, typ: type, kid: kid)
        return Base64URLText.encode(try encoder.encode(header))
    }

    /// The same keys, counted as loaded now.
    func refreshed() -> SigningKeySet {
        SigningKeySet(keys: keys, headers: headers, currentKIDs: currentKIDs, loadedAt: .now)
    }
}

/// Login tokens in JWS compact serialisation (RFC 7515 §7.1): the key's algorithm
/// (``TokenKeyMaterial``) over the ASCII `BASE64URL(header) . BASE64URL(payload)`.
enum LoginTokenJWS {
    /// Signs `claims` with `key`, under the key's login-token header or `encodedHeader`.
    static func sign(_ claims: some Encodable, key: SigningKeySet.Key, encodedHeader: String? = nil) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try JWSCompactSerialization.sign(
            encodedHeader: encodedHeader ?? key.encodedHeader, payload: try encoder.encode(claims),
            signature: key.material.signature(for:))
    }

    /// A token split into its parts; `nil` when it is not three base64url parts.
    struct Parts {
        let header: JWSHeader
        let signingInput: Data
        let payload: Data
        let signature: Data
    }

    /// Splits `token` and decodes its parts, each in its one canonical spelling
    /// (``CompactJWSParts``); the header from `known` when its bytes are one of them, else as JSON.
    static func parts(of token: String, known: [[UInt8]: JWSHeader] = [:]) -> Parts? {
        guard let parts = try? CompactJWSParts(token, canonical: true),
            let header = known[parts.header]
                ?? (try? JSONDecoder().decode(JWSHeader.self, from: Data(parts.header)))
        else { return nil }
        return Parts(
            header: header, signingInput: Data(parts.signingInput), payload: Data(parts.payload),
            signature: Data(parts.signature))
    }

    /// Whether `parts`' signature verifies with `key`.
    static func isSigned(_ parts: Parts, by key: SigningKeySet.Key) -> Bool {
        key.material.isValidSignature(parts.signature, for: parts.signingInput)
    }
}
