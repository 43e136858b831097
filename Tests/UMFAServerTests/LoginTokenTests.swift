import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

@Suite("Login token")
struct LoginTokenTests {
    @Test("header and claims as documented; the signature verifies with the JWKS key alone")
    func headerAndClaims() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant", tokenTTL: 900)
            let device = Device.make()
            let grant = try await api.enrollmentToken(app, user: "carol", userpwTime: "2025-12-31T23:58:00Z")
            let registered = try await api.register(app, user: "carol", device: device, enrollmentToken: grant)

            let jwks = try await api.send(.get, APIOperation.jwks.path)
            let keys = try #require(jwks["keys"]?.arrayValue)
            #expect(Set(keys.compactMap { $0["alg"]?.stringValue }) == ["RS256", "ES256", "EdDSA"])
            let jwk = try #require(keys.first { $0["alg"]?.stringValue == "RS256" })
            #expect(jwk["kty"]?.stringValue == "RSA")
            #expect(jwk["alg"]?.stringValue == "RS256")
            #expect(jwk["use"]?.stringValue == "sig")

            let jwt = try CompactJWT(registered.token)
            #expect(
                jwt.header
                    == .object([
                        "typ": .string("JWT"), "alg": .string("RS256"), "kid": try #require(jwk["kid"]),
                        "iss": .string("UMFA::Authenticator"),
                    ]))
            let claims = jwt.claims
            let iat = try #require(claims["iat"]?.intValue)
            #expect(iat == Int(api.clock.now.timeIntervalSince1970))
            #expect(claims["exp"]?.intValue == iat + 900)
            #expect(claims["iss"]?.stringValue == "UMFA::Authenticator")
            #expect(claims["sub"]?.stringValue == "UMFA_login")
            #expect(claims["aud"] == .array([.string("UMFA::Authenticator"), .string(app.id)]))
            #expect(UUID(uuidString: claims["jti"]?.stringValue ?? "") != nil)
            #expect(claims["user_id"]?.stringValue == "carol")
            #expect(claims["application_id"]?.stringValue == app.id)
            #expect(claims["credential_id"]?.stringValue == registered.credentialID)
            let webauthnTime = try #require(claims["webauthn_time"]?.stringValue)
            #expect(webauthnTime.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z/#) != nil)
            #expect(webauthnTime == "2026-01-01T00:00:00.000Z")
            #expect(claims["userpw_time"]?.stringValue == "2025-12-31T23:58:00.000Z")
            let amr = claims["amr"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(amr.contains("swk"))
            #expect(amr.contains("user"))

            let n = try #require(jwk["n"]?.stringValue)
            let e = try #require(jwk["e"]?.stringValue)
            #expect(try jwt.verifies(n: n, e: e))

            // A changed claim breaks the signature, so the check above is real.
            let parts = registered.token.split(separator: ".").map(String.init)
            var forged = jwt.claims.objectValue ?? [:]
            forged["user_id"] = .string("mallory")
            let tampered = try CompactJWT(
                parts[0] + "." + Base64URL.encode(try JSONEncoder().encode(JSONValue.object(forged))) + "."
                    + parts[2])
            #expect(try !tampered.verifies(n: n, e: e))
        }
    }

    @Test("userpw_time only when the enrollment token carried one; never in sign-in tokens; jti unique")
    func userpwTimeOnlyWhenKnown() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let withTime = try await api.register(
                app, user: "dave", device: Device.make(),
                enrollmentToken: try await api.enrollmentToken(app, user: "dave", userpwTime: "2025-12-31T23:00:00Z"))
            let device = Device.make()
            let withoutTime = try await api.register(
                app, user: "erin", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "erin"))
            api.clock.advance(by: 12.25)
            let signIn = try await api.authenticate(app, user: "erin", device: device)

            let first = try CompactJWT(withTime.token).claims
            let second = try CompactJWT(withoutTime.token).claims
            let third = try CompactJWT(signIn.token).claims
            #expect(first["userpw_time"]?.stringValue == "2025-12-31T23:00:00.000Z")
            #expect(second["userpw_time"] == nil)
            #expect(third["userpw_time"] == nil)
            #expect(third["webauthn_time"]?.stringValue == "2026-01-01T00:00:12.250Z")
            #expect(third["exp"]?.intValue == (third["iat"]?.intValue ?? 0) + 300)
            let ids = Set([first, second, third].compactMap { $0["jti"]?.stringValue })
            #expect(ids.count == 3)
        }
    }
}
