import Foundation
import Testing
import UMFAEncoding
import UMFAJOSE
import UMFATestSupport
import UMFATokens
import UMFAWebAuthn

/// RFC 9449 §4.3's checks of a proof on its own, and RFC 7638's thumbprint, with the examples
/// the RFCs publish.
@Suite("DPoP proofs (RFC 9449) and JWK thumbprints (RFC 7638)")
struct DPoPProofTests {
    /// RFC 7638 §3.1's RSA key and its published thumbprint.
    @Test("RFC 7638 §3.1: the example RSA key's thumbprint")
    func rfc7638() {
        let n =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        #expect(
            JWKThumbprint.compute(["kty": "RSA", "n": n, "e": "AQAB"]) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    /// RFC 9449 §4.1 Figure 2's proof; §6.1 Figure 9 publishes its key's thumbprint.
    static let rfcProof =
        "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ.2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg"
    static let rfcTime = Date(timeIntervalSince1970: 1_562_262_616)
    static let rfcURL = "https://server.example.com/token"

    @Test("RFC 9449 Figure 2: the example proof verifies, with the thumbprint of Figure 9")
    func rfc9449Example() throws {
        let proof = try DPoPProof(Self.rfcProof, method: "POST", url: Self.rfcURL, accessToken: nil, now: Self.rfcTime)
        #expect(proof.thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(proof.jti == "-BwC3ESc6acc2lTc")
        #expect(proof.issuedAt == Self.rfcTime && proof.nonce == nil)
        // The URI comparison ignores query, fragment, case of scheme and host, and a default port.
        _ = try DPoPProof(
            Self.rfcProof, method: "POST", url: "HTTPS://Server.Example.com:443/token?x=1#f", accessToken: nil,
            now: Self.rfcTime)
    }

    @Test("the same proof for another method, URL or time, or with an access token, is refused")
    func rfc9449ExampleRefused() {
        let cases: [(String, String, String?, Date, String)] = [
            ("GET", Self.rfcURL, nil, Self.rfcTime, "htm is not GET"),
            ("POST", "https://server.example.com/userinfo", nil, Self.rfcTime, "htu is not this endpoint's URL"),
            ("POST", "http://server.example.com/token", nil, Self.rfcTime, "htu is not this endpoint's URL"),
            ("POST", Self.rfcURL, nil, Self.rfcTime + 61, "iat is more than 60 s"),
            ("POST", Self.rfcURL, nil, Self.rfcTime - 61, "iat is more than 60 s"),
            ("POST", Self.rfcURL, "an access token", Self.rfcTime, "has no ath claim"),
        ]
        for (method, url, token, now, reason) in cases {
            #expect {
                try DPoPProof(Self.rfcProof, method: method, url: url, accessToken: token, now: now)
            } throws: { error in
                (error as? DPoPProof.Failure)?.message.contains(reason) == true
            }
        }
    }

    @Test("RFC 9449 §7.1: ath is the base64url SHA-256 of the access token")
    func athExample() throws {
        let key = DPoPKey()
        let token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        let url = "https://resource.example.org/protectedresource"
        let proof = key.proof("GET", url, claims: ["ath": "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"])
        _ = try DPoPProof(proof, method: "GET", url: url, accessToken: token, now: Date())
        #expect(throws: DPoPProof.Failure.self) {
            try DPoPProof(proof, method: "GET", url: url, accessToken: token + "x", now: Date())
        }
    }

    @Test("each broken proof is refused and says why")
    func brokenProofs() {
        let key = DPoPKey()
        let url = "https://umfa.example/oidc/x/token"
        let other = DPoPKey()
        var withPrivate = key.jwk as [String: Any]
        withPrivate["d"] = Base64URL.encode(Array(repeating: 1, count: 32))
        let cases: [(String, String)] = [
            (key.proof("POST", url, header: ["typ": "JWT"]), "typ must be dpop+jwt"),
            (key.proof("POST", url, header: ["alg": "HS256"]), "alg must be one of"),
            (key.proof("POST", url, header: ["alg": "none"]), "alg must be one of"),
            (key.proof("POST", url, header: ["alg": "RS256"]), "does not fit alg"),
            (key.proof("POST", url, header: ["jwk": withPrivate]), "must be a public key"),
            (key.proof("POST", url, header: ["jwk": nil]), "has no jwk"),
            (key.proof("POST", url, header: ["jwk": other.jwk]), "signature does not verify"),
            (key.proof("POST", url, claims: ["jti": nil]), "needs a jti"),
            (key.proof("POST", url, claims: ["htu": nil]), "needs htm, htu and iat"),
            (key.proof("POST", url, claims: ["iat": "now"]), "needs htm, htu and iat"),
            (key.proof("POST", url, claims: ["nonce": 5]), "nonce must be a string"),
            ("not.a.jwt", "is not a JWT"),
        ]
        for (proof, reason) in cases {
            #expect {
                try DPoPProof(proof, method: "POST", url: url, accessToken: nil, now: Date())
            } throws: { error in
                (error as? DPoPProof.Failure)?.message.contains(reason) == true
            }
        }
        #expect(throws: Never.self) {
            try DPoPProof(key.proof("POST", url), method: "POST", url: url, accessToken: nil, now: Date())
        }
    }
}
