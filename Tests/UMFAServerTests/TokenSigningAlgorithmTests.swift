import Crypto
import Foundation
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// docs/contract.md §2 and §5: an application signs its login tokens and OAuth tokens with RS256 (the
/// default), ES256 or EdDSA; the JWKS publishes every key that validates.
@Suite("Token signing per application: RS256, ES256, EdDSA")
struct TokenSigningAlgorithmTests {
    static func patch(_ api: API, _ app: TestApplication, _ settings: ApplicationSettingsRequest) async throws -> Reply
    {
        try await api.send(
            .patch, APIOperation.updateApplication.path(["id": app.id]), json: try .encoding(settings),
            bearer: TestServer.adminToken)
    }

    /// The JWK of the JWKS whose `kid` the token's header names.
    static func key(for jwt: CompactJWT, in api: API, path: String = APIOperation.jwks.path) async throws -> JSONValue {
        let jwks = try await api.send(.get, path)
        return try #require(jwks["keys"]?.arrayValue?.first { $0["kid"] == jwt.header["kid"] })
    }

    @Test(
        "ES256 and EdDSA login tokens verify with their JWKS key alone and pass validate-token",
        arguments: [
            "ES256", "EdDSA",
        ])
    func loginTokens(algorithm: String) async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let patched = try await Self.patch(
                api, app, ApplicationSettingsRequest(ApplicationSettings(tokenSigningAlg: algorithm)))
            #expect(patched.status == .ok && patched["token_signing_alg"]?.stringValue == algorithm, "\(patched.text)")
            let device = Device.make()
            let grant = try await api.enrollmentToken(app, user: "alice")
            let login = try await api.register(app, user: "alice", device: device, enrollmentToken: grant)

            let jwt = try CompactJWT(login.token)
            #expect(jwt.header["alg"]?.stringValue == algorithm)
            #expect(jwt.header["typ"]?.stringValue == "JWT")
            let jwk = try await Self.key(for: jwt, in: api)
            #expect(jwk["alg"]?.stringValue == algorithm)
            #expect(try jwt.verifies(jwk: jwk))
            #expect(try await api.validate(app, user: "alice", token: .string(login.token)).status == .ok)

            // One changed claim breaks the signature, so the check above is real.
            var claims = jwt.claims.objectValue ?? [:]
            claims["user_id"] = .string("mallory")
            let parts = login.token.split(separator: ".").map(String.init)
            let tampered = try CompactJWT(
                parts[0] + "." + Base64URL.encode(try JSONEncoder().encode(JSONValue.object(claims))) + "." + parts[2])
            #expect(try !tampered.verifies(jwk: jwk))
        }
    }

    @Test("changing the algorithm keeps earlier tokens valid; the key, never the header, decides the algorithm")
    func changeAndConfusion() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let device = Device.make()
            let grant = try await api.enrollmentToken(app, user: "alice")
            let rsaLogin = try await api.register(app, user: "alice", device: device, enrollmentToken: grant)
            #expect(try CompactJWT(rsaLogin.token).header["alg"]?.stringValue == "RS256")

            #expect(
                try await Self.patch(
                    api, app, ApplicationSettingsRequest(ApplicationSettings(tokenSigningAlg: "ES256"))
                ).status == .ok)
            let ecLogin = try await api.authenticate(app, user: "alice", device: device)
            #expect(try CompactJWT(ecLogin.token).header["alg"]?.stringValue == "ES256")
            #expect(try await api.validate(app, user: "alice", token: .string(rsaLogin.token)).status == .ok)
            #expect(try await api.validate(app, user: "alice", token: .string(ecLogin.token)).status == .ok)

            // The ES256 token's header relabelled: another algorithm, the same kid and signature.
            let parts = ecLogin.token.split(separator: ".").map(String.init)
            for (alg, reason) in [
                ("RS256", "the algorithm is not the signing key's (ES256)"),
                ("EdDSA", "the algorithm is not the signing key's (ES256)"),
                ("HS256", "the algorithm must be RS256, ES256 or EdDSA"),
                ("none", "the algorithm must be RS256, ES256 or EdDSA"),
            ] {
                var header = try CompactJWT(ecLogin.token).header.objectValue ?? [:]
                header["alg"] = .string(alg)
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                let relabelled =
                    Base64URL.encode(try encoder.encode(JSONValue.object(header))) + "." + parts[1] + "." + parts[2]
                expectError(
                    try await api.validate(app, user: "alice", token: .string(relabelled)), .unauthorized,
                    message: "Validate token failed with: MFA login JWT was invalid: Invalid JWT: " + reason)
            }
        }
    }

    @Test("an unknown algorithm is refused with 400 and changes nothing")
    func unknownAlgorithm() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            for alg in ["HS256", "none", "es256", "PS256", ""] {
                expectError(
                    try await Self.patch(
                        api, app, ApplicationSettingsRequest(ApplicationSettings(tokenSigningAlg: alg))), .badRequest,
                    message: "token_signing_alg must be RS256, ES256 or EdDSA")
            }
            let shown = try await api.send(
                .get, APIOperation.getApplication.path(["id": app.id]), bearer: TestServer.adminToken)
            #expect(shown["token_signing_alg"]?.stringValue == "RS256")
        }
    }

    @Test(
        "an EdDSA issuer signs access and ID tokens with EdDSA; discovery and at_hash say so",
        arguments: [
            "ES256", "EdDSA",
        ])
    func oauthTokens(algorithm: String) async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            #expect(
                try await Self.patch(
                    api, app, ApplicationSettingsRequest(ApplicationSettings(tokenSigningAlg: algorithm))
                ).status == .ok)
            let discovery = try await api.send(.get, APIOperation.oidcDiscovery.path(["application_id": app.id]))
            #expect(discovery["id_token_signing_alg_values_supported"] == .array([.string(algorithm)]))
            let issuerJWKS = APIOperation.oidcJWKS.path(["application_id": app.id])

            let client = try await api.codeClient(app, firstParty: true)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "ada@example.com", device: Device.make())
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            #expect(tokens.status == .ok, "\(tokens.text)")
            let access = try #require(tokens["access_token"]?.stringValue)
            let accessJWT = try CompactJWT(access)
            #expect(
                accessJWT.header["alg"]?.stringValue == algorithm && accessJWT.header["typ"]?.stringValue == "at+jwt")
            #expect(try accessJWT.verifies(jwk: try await Self.key(for: accessJWT, in: api, path: issuerJWKS)))
            #expect(try await api.userinfo(app, token: access).status == .ok)

            let idToken = try CompactJWT(try #require(tokens["id_token"]?.stringValue))
            #expect(idToken.header["alg"]?.stringValue == algorithm)
            #expect(try idToken.verifies(jwk: try await Self.key(for: idToken, in: api, path: issuerJWKS)))
            // OpenID Connect Core §3.1.3.6: the hash of the alg; SHA-512 for Ed25519.
            let digest: [UInt8] =
                algorithm == "EdDSA"
                ? Array(Array(SHA512.hash(data: Array(access.utf8))).prefix(32))
                : Array(Array(SHA256.hash(data: Array(access.utf8))).prefix(16))
            #expect(idToken.claims["at_hash"]?.stringValue == Base64URL.encode(digest))
        }
    }

    @Test("apple-app-site-association and assetlinks.json list every application's apps")
    func appSiteAssociation() async throws {
        try await TestServer.with { api in
            let empty = try await api.send(.get, APIOperation.appleAppSiteAssociation.path)
            #expect(empty.status == .ok && empty.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(empty["webcredentials"]?["apps"] == .array([]))
            #expect(try await api.send(.get, APIOperation.assetLinks.path).json == .array([]))

            let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")
            let shop = try await api.createApplication(policy: "grant")
            let bank = try await api.createApplication(policy: "grant")
            let apps = ApplicationSettingsRequest(
                ApplicationSettings(
                    appleAppIDs: ["ABCDE12345.com.example.shop"],
                    androidApps: [AndroidApp(packageName: "com.example.shop", sha256CertFingerprints: [fingerprint])]))
            #expect(try await Self.patch(api, shop, apps).status == .ok)
            #expect(
                try await Self.patch(
                    api, bank,
                    ApplicationSettingsRequest(ApplicationSettings(appleAppIDs: ["ZYXWV98765.com.example.bank"]))
                )
                .status == .ok)

            let apple = try await api.send(.get, APIOperation.appleAppSiteAssociation.path)
            let ids: Set<String> = ["ABCDE12345.com.example.shop", "ZYXWV98765.com.example.bank"]
            #expect(Set(apple["webcredentials"]?["apps"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ids)
            let detail = try #require(apple["applinks"]?["details"]?.arrayValue?.first)
            #expect(Set(detail["appIDs"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ids)
            #expect(detail["components"] == .array([.object(["/": .string("/open*")])]))

            let links = try await api.send(.get, APIOperation.assetLinks.path)
            let statement = try #require(links.json?.arrayValue?.first)
            #expect(links.json?.arrayValue?.count == 1)
            #expect(
                statement["relation"]
                    == .array([
                        .string("delegate_permission/common.handle_all_urls"),
                        .string("delegate_permission/common.get_login_creds"),
                    ]))
            #expect(
                statement["target"]
                    == .object([
                        "namespace": .string("android_app"), "package_name": .string("com.example.shop"),
                        "sha256_cert_fingerprints": .array([.string(fingerprint)]),
                    ]))
        }
    }

    @Test("malformed app ids and fingerprints are refused with 400 and change nothing")
    func nativeAppValidation() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let good = (0..<32).map { _ in "AB" }.joined(separator: ":")
            let bad: [ApplicationSettings] = [
                .init(appleAppIDs: ["com.example.shop"]),
                .init(appleAppIDs: ["abcde12345.com.example.shop"]),
                .init(appleAppIDs: ["ABCDE12345."]),
                .init(appleAppIDs: Array(repeating: "ABCDE12345.com.example.shop", count: 51)),
                .init(androidApps: [AndroidApp(packageName: "shop", sha256CertFingerprints: [good])]),
                .init(androidApps: [AndroidApp(packageName: "com.example.shop", sha256CertFingerprints: [])]),
                .init(androidApps: [AndroidApp(packageName: "com.example.shop", sha256CertFingerprints: ["AB:CD"])]),
                .init(androidApps: [AndroidApp(packageName: "com.1example.shop", sha256CertFingerprints: [good])]),
            ]
            for settings in bad {
                let reply = try await Self.patch(api, app, ApplicationSettingsRequest(settings))
                #expect(reply.status == .badRequest, "\(settings): \(reply.text)")
            }
            #expect(
                try await api.send(.get, APIOperation.appleAppSiteAssociation.path)["webcredentials"]?["apps"]
                    == .array([]))
            #expect(try await api.send(.get, APIOperation.assetLinks.path).json == .array([]))
        }
    }
}
