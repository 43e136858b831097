import Crypto
import Foundation
import Logging
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import _CryptoExtras

/// A compact JWS taken apart and checked by hand, independently of jwt-kit.
struct CompactJWT {
    let header: JSONValue
    let claims: JSONValue
    let signingInput: String
    let signature: [UInt8]

    init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]), let claims = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw TestFailure("not a compact JWS: \(token)") }
        self.header = try JSONDecoder().decode(JSONValue.self, from: Data(header))
        self.claims = try JSONDecoder().decode(JSONValue.self, from: Data(claims))
        signingInput = parts[0] + "." + parts[1]
        self.signature = signature
    }

    /// Whether the RS256 signature verifies with the RSA key given by its JWK `n` and `e`.
    func verifies(n: String, e: String) throws -> Bool {
        guard let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else { return false }
        let key = try _RSA.Signing.PublicKey(n: modulus, e: exponent)
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: Data(signingInput.utf8)),
            padding: .insecurePKCS1v1_5)
    }

    /// Whether the signature verifies with the public JWK `jwk` by its own `alg`: RS256, ES256
    /// (`R ‖ S` over P-256) or EdDSA (Ed25519).
    func verifies(jwk: JSONValue) throws -> Bool {
        let input = Data(signingInput.utf8)
        switch jwk["alg"]?.stringValue {
        case "RS256":
            return try verifies(n: jwk["n"]?.stringValue ?? "", e: jwk["e"]?.stringValue ?? "")
        case "ES256":
            guard jwk["crv"]?.stringValue == "P-256", let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode),
                let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode), signature.count == 64
            else { return false }
            let key = try P256.Signing.PublicKey(rawRepresentation: x + y)
            return key.isValidSignature(
                try P256.Signing.ECDSASignature(rawRepresentation: signature), for: SHA256.hash(data: input))
        case "EdDSA":
            guard jwk["crv"]?.stringValue == "Ed25519", let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode) else {
                return false
            }
            return try Curve25519.Signing.PublicKey(rawRepresentation: x).isValidSignature(signature, for: input)
        default:
            return false
        }
    }

    /// Signs any header and claims with RS256 and `key`.
    static func sign(header: JSONValue, claims: JSONValue, with key: _RSA.Signing.PrivateKey) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let input =
            Base64URL.encode(try encoder.encode(header)) + "." + Base64URL.encode(try encoder.encode(claims))
        let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// The same header and claims with some claims replaced (`nil` removes one), signed by `key`.
    func resigned(
        changing changes: [String: JSONValue?], header headerChanges: [String: JSONValue] = [:],
        with key: _RSA.Signing.PrivateKey
    ) throws -> String {
        var members = claims.objectValue ?? [:]
        for (name, value) in changes { members[name] = value }
        var headerMembers = header.objectValue ?? [:]
        for (name, value) in headerChanges { headerMembers[name] = value }
        return try Self.sign(header: .object(headerMembers), claims: .object(members), with: key)
    }
}

/// The server's current signing key, read the way an attacker with the database and the
/// master key file could: it lets tests forge tokens that differ from real ones in one claim.
enum ServerSigningKey {
    static func load(from directory: URL) async throws -> (kid: String, key: _RSA.Signing.PrivateKey) {
        let store = try await SQLiteStore.open(
            path: directory.appendingPathComponent("umfa.sqlite").path, logger: Logger(label: "umfa-test-forge"))
        let records = try await store.signingKeys()
        try await store.close()
        guard let record = records.first(where: { $0.retiredAt == nil && $0.algorithm == "RS256" }) else {
            throw TestFailure("no current RS256 signing key")
        }
        let masterKey = try MasterKey.loadOrCreate(in: directory)
        let der = try masterKey.open(record.sealedPrivateKey, context: "signing-key:" + record.kid)
        return (record.kid, try _RSA.Signing.PrivateKey(derRepresentation: der))
    }
}
