import Crypto
import Foundation
import Testing
import UMFAEncoding
import UMFAJOSE
import _CryptoExtras

/// Compact serialisation, the algorithms and the published examples (RFC 7515 Appendix A).
@Suite("JWS: compact serialisation and algorithms")
struct JWSTests {
    /// RFC 7515 Appendix A.1: the HS256 example JWS and its key.
    static let rfc7515HS256 =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let rfc7515Key =
        "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"

    @Test("RFC 7515 A.1: the HS256 example reads and verifies with its key, not with another")
    func rfc7515HS256() throws {
        let jwt = try SignedJWT<JWTClaims>(Self.rfc7515HS256)
        #expect(jwt.header.algorithm == .hs256)
        #expect(jwt.header.typ == "JWT")
        #expect(jwt.claims.iss == "joe")
        #expect(jwt.claims.exp == 1_300_819_380)
        #expect(jwt.claims.members == ["iss", "exp", "http://example.com/is_root"])
        let key = SymmetricKey(data: try #require(Base64URL.decode(Self.rfc7515Key)))
        #expect(jwt.isSigned(by: .hmac(.hs256, key)))
        #expect(!jwt.isSigned(by: .hmac(.hs256, SymmetricKey(data: Array("another secret".utf8)))))
        #expect(!jwt.isSigned(by: .hmac(.hs512, key)))
    }

    @Test(
        "each asymmetric algorithm signs a JWT that its public JWK verifies, and only its own",
        arguments: [
            JWSSigningKey.es256(P256.Signing.PrivateKey()), .edDSA(Curve25519.Signing.PrivateKey()),
            .rs256(try _RSA.Signing.PrivateKey(keySize: .bits2048)),
        ])
    func asymmetricRoundTrip(key: JWSSigningKey) throws {
        let claims = JWTClaims(iss: "client", aud: ["https://server.example/token"], iat: 1_700_000_000, jti: "j1")
        let token = try JWSCompactSerialization.sign(
            header: JWSHeader(algorithm: key.algorithm, typ: "JWT"), claims: claims, key: key)
        let jwt = try SignedJWT<JWTClaims>(token)
        #expect(jwt.header.algorithm == key.algorithm)
        #expect(jwt.claims.aud == ["https://server.example/token"])
        let publicKey = try PublicJWK(jwk: try Self.publicJWK(of: key), alg: key.algorithm.rawValue)
        #expect(jwt.isSigned(by: publicKey))
        #expect(jwt.isSigned(by: key))
        // Another payload under the same signature: refused.
        let forged = try SignedJWT<JWTClaims>(
            token.split(separator: ".")[0] + "." + Base64URL.encode(Array(#"{"iss":"mallory"}"#.utf8)) + "."
                + token.split(separator: ".")[2])
        #expect(!forged.isSigned(by: publicKey))
    }

    @Test("the writer's bytes are those of JSONSerialization with sorted keys (slashes escaped, whole seconds)")
    func writerBytes() throws {
        let claims = JWTClaims(
            iss: "c", sub: "c", aud: ["https://server.example/token"], exp: 1_700_000_060, iat: 1_700_000_000,
            jti: "j")
        let token = try JWSCompactSerialization.sign(
            header: JWSHeader(algorithm: .hs256, typ: "JWT"), claims: claims,
            key: .hmac(.hs256, SymmetricKey(data: Array("secret".utf8))))
        let parts = token.split(separator: ".").map(String.init)
        #expect(
            Base64URL.decode(parts[0]).map { String(decoding: $0, as: UTF8.self) } == #"{"alg":"HS256","typ":"JWT"}"#)
        let expected = try JSONSerialization.data(
            withJSONObject: [
                "iss": "c", "sub": "c", "aud": "https://server.example/token", "exp": 1_700_000_060,
                "iat": 1_700_000_000, "jti": "j",
            ], options: .sortedKeys)
        #expect(Base64URL.decode(parts[1]) == Array(expected))
    }

    @Test("not a JWS: two parts, a non-canonical part, a header that is not an object")
    func notCompact() {
        let header = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        let payload = Base64URL.encode(Array("{}".utf8))
        for text in [header + "." + payload, header + "=." + payload + ".", "W10." + payload + "."] {
            #expect(throws: JOSEError(.notCompactJWS, "")) { try SignedJWT<JWTClaims>(text) }
        }
        #expect((try? SignedJWT<JWTClaims>(header + "." + payload + ".")) != nil)
    }

    static func publicJWK(of key: JWSSigningKey) throws -> JWK {
        switch key {
        case .es256(let key): JWK(key.publicKey)
        case .rs256(let key): try JWK(key.publicKey)
        case .edDSA(let key): JWK(key.publicKey)
        case .hmac: JWK(kty: "oct")
        }
    }
}
