import Crypto
import Foundation
import Testing
import UMFAEncoding
import UMFAJOSE
import _CryptoExtras

/// Typed JWKs and headers read as a reader that checks each member's type would, and the
/// coded refusals of ``PublicJWK``.
@Suite("JWK and JWS header members")
struct JWKTests {
    static func decode<Value: Decodable>(_ json: String, as type: Value.Type = Value.self) throws -> Value {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    @Test("a member of another type reads as absent, yet is known to be there")
    func lenientMembers() throws {
        let header = try Self.decode(#"{"alg":5,"crit":"b64","kid":"k1","jwk":"not an object"}"#, as: JWSHeader.self)
        #expect(header.alg == nil)
        #expect(header.crit == nil)
        #expect(header.jwk == nil)
        #expect(header.kid == "k1")
        #expect(header.members == ["alg", "crit", "kid", "jwk"])
        let claims = try Self.decode(#"{"nonce":7,"aud":["a",1],"iat":"now"}"#, as: JWTClaims.self)
        #expect(claims.nonce == nil && claims.aud == nil && claims.iat == nil)
        #expect(claims.members.contains("nonce"))
        #expect(try Self.decode(#"{"aud":"one"}"#, as: JWTClaims.self).aud == ["one"])
    }

    @Test("a JWK Set's keys; none when it is not one")
    func jwkSet() {
        #expect(
            JWKSet.keys(in: Array(#"{"keys":[{"kty":"EC","kid":"a"},{"kty":"OKP"}]}"#.utf8)).map(\.kid) == ["a", nil])
        #expect(JWKSet.keys(in: Array(#"{"keys":[{"kty":"EC"},"x"]}"#.utf8)).isEmpty)
        #expect(JWKSet.keys(in: Array("[]".utf8)).isEmpty)
    }

    @Test("PublicJWK refuses by code: private members, a missing member, a weak or mismatched key")
    func refusals() throws {
        let key = JWK(P256.Signing.PrivateKey().publicKey)
        #expect(throws: JOSEError(.privateKey, "")) {
            try PublicJWK(
                jwk: try Self.decode(
                    #"{"kty":"EC","crv":"P-256","x":"\#(key.x ?? "")","y":"\#(key.y ?? "")","d":"AA"}"#), alg: "ES256")
        }
        #expect(throws: JOSEError(.missingMember, "")) {
            try PublicJWK(jwk: JWK(kty: "EC", crv: "P-256", x: key.x), alg: "ES256")
        }
        #expect(throws: JOSEError(.unsupportedKey, "")) { try PublicJWK(jwk: key, alg: "RS256") }
        let weak = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        #expect(throws: JOSEError(.unsupportedKey, "")) { try PublicJWK(jwk: try JWK(weak.publicKey), alg: "RS256") }
        #expect(throws: JOSEError(.invalidMember, "")) {
            try PublicJWK(jwk: JWK(kty: "OKP", crv: "Ed25519", x: "AAAA"), alg: "EdDSA")
        }
    }

    @Test("RFC 7638 §3.1: the thumbprint of the example RSA key, from a typed JWK")
    func thumbprint() throws {
        let jwk: JWK = try Self.decode(
            #"{"kty":"RSA","e":"AQAB","alg":"RS256","kid":"2011-04-29","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}"#
        )
        #expect(JWKThumbprint.compute(jwk) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(try PublicJWK(jwk: jwk, alg: "RS256").thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("a JWK written here carries only the members set, sorted by an encoder that sorts")
    func writtenJWK() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(JWK(kty: "OKP", crv: "Ed25519", x: "abc")), as: UTF8.self)
        #expect(text == #"{"crv":"Ed25519","kty":"OKP","x":"abc"}"#)
    }
}
