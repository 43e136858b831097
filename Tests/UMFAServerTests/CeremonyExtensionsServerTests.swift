import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAContract
import UMFAEncoding
import UMFAServer
import UMFATestSupport
import UMFAWebAuthnTypes

/// credProps, PRF inputs, hints, attestation formats and credential protection over the HTTP
/// API (WebAuthn L3 §5.4, §10.1.3, §10.1.4; CTAP 2.1 credProtect): the settings are checked and
/// shown, options carry them, and what the client says of a new credential is stored and listed.
@Suite("Extensions and hints over the API")
struct CeremonyExtensionsServerTests {
    /// A secret PRF output a client reports; it must never reach the store or the log.
    static let prfSecret = Base64URL.encode(Array("the client's own PRF output, 32b".utf8))

    /// An application with `settings` (201 required).
    func application(_ api: API, _ settings: [String: JSONValue]) async throws -> TestApplication {
        var body: [String: JSONValue] = [
            "name": "Vault", "rp_id": .string(TestApplication.rpID),
            "origins": .array([.string(TestApplication.origin)]),
            "enrollment_policy": "open",
        ]
        body.merge(settings) { $1 }
        let reply = try await api.post(
            APIOperation.createApplication.path, .object(body), bearer: TestServer.adminToken)
        guard reply.status == .created, let id = reply["application_id"]?.stringValue,
            let key = reply["api_key"]?.stringValue, let json = reply.json
        else { throw TestFailure("creating the application failed: \(reply.status) \(reply.text)") }
        return TestApplication(id: id, apiKey: key, settings: json)
    }

    func registrationOptions(_ api: API, _ app: TestApplication, user: String, _ extra: [String: JSONValue] = [:])
        async throws -> Reply
    {
        var body: [String: JSONValue] = ["application_id": .string(app.id), "user_id": .string(user)]
        body.merge(extra) { $1 }
        return try await api.post(APIOperation.registrationOptions.path, .object(body))
    }

    func authenticationOptions(_ api: API, _ app: TestApplication, user: String?, _ extra: [String: JSONValue] = [:])
        async throws -> Reply
    {
        var body: [String: JSONValue] = ["application_id": .string(app.id)]
        if let user { body["user_id"] = .string(user) }
        body.merge(extra) { $1 }
        return try await api.post(APIOperation.authenticationOptions.path, .object(body))
    }

    /// Registers a new software authenticator for `user`, the client reporting `results` as
    /// its extension outputs; the verify answer.
    func register(
        _ api: API, _ app: TestApplication, user: String, results: [String: JSONValue],
        options extra: [String: JSONValue] = [:]
    ) async throws -> Reply {
        let options = try await registrationOptions(api, app, user: user, extra)
        let creation = try #require(options["publicKey"], "\(options.text)").decoded(CreationOptionsJSON.self)
        var credential = try Device.make().create(creation, userVerified: true)
        credential.clientExtensionResults = results
        return try await api.post(
            APIOperation.registrationVerify.path,
            .object([
                "application_id": .string(app.id), "user_id": .string(user), "credential": try .encoding(credential),
            ]))
    }

    func listed(_ api: API, _ app: TestApplication, user: String) async throws -> [JSONValue] {
        let reply = try await api.send(
            .get, APIOperation.listUserCredentials.path(["user_id": user]) + "?application_id=\(app.id)",
            bearer: app.apiKey)
        return try #require(reply["credentials"]?.arrayValue, "\(reply.text)")
    }

    @Test("hints, attestation_formats and credential protection: checked (400 naming the member), shown, in options")
    func settings() async throws {
        try await TestServer.with { api in
            let bad: [(String, JSONValue)] = [
                ("hints", ["security-key", "usb"]), ("hints", ["hybrid", "hybrid"]),
                ("attestation_formats", ["packed", "x509"]), ("attestation_formats", ["tpm", "tpm"]),
                ("credential_protection_policy", "userVerificationSometimes"),
            ]
            for (member, value) in bad {
                let reply = try await api.post(
                    APIOperation.createApplication.path,
                    .object([
                        "name": "Vault", "rp_id": .string(TestApplication.rpID),
                        "origins": .array([.string(TestApplication.origin)]), member: value,
                    ]), bearer: TestServer.adminToken)
                expectError(reply, .badRequest, containing: member)
            }
            let app = try await application(
                api,
                [
                    "hints": ["security-key", "hybrid"], "attestation_formats": ["tpm", "packed", "none"],
                    "credential_protection_policy": "userVerificationRequired",
                    "enforce_credential_protection_policy": true,
                ])
            #expect(app.settings["hints"] == ["security-key", "hybrid"])
            #expect(app.settings["attestation_formats"] == ["tpm", "packed", "none"])
            #expect(app.settings["credential_protection_policy"] == "userVerificationRequired")
            #expect(app.settings["enforce_credential_protection_policy"] == true)

            let creation = try #require(try await registrationOptions(api, app, user: "alice")["publicKey"])
            #expect(creation["hints"] == ["security-key", "hybrid"])
            #expect(creation["attestationFormats"] == ["tpm", "packed", "none"])
            let extensions = try #require(creation["extensions"])
            #expect(extensions["credProps"] == true)
            #expect(extensions["credentialProtectionPolicy"] == "userVerificationRequired")
            #expect(extensions["enforceCredentialProtectionPolicy"] == true)
            #expect(extensions["prf"] == nil)
            let request = try #require(try await authenticationOptions(api, app, user: "alice")["publicKey"])
            #expect(request["hints"] == ["security-key", "hybrid"])

            // A request's own hints replace the application's, checked the same way.
            let own = try await registrationOptions(api, app, user: "alice", ["hints": ["client-device"]])
            #expect(own["publicKey"]?["hints"] == ["client-device"])
            let ownRequest = try await authenticationOptions(api, app, user: nil, ["hints": ["hybrid"]])
            #expect(ownRequest["publicKey"]?["hints"] == ["hybrid"])
            expectError(
                try await registrationOptions(api, app, user: "alice", ["hints": ["nfc"]]), .badRequest,
                containing: "hints")
            expectError(
                try await authenticationOptions(api, app, user: nil, ["hints": ["hybrid", "hybrid"]]), .badRequest,
                containing: "hints")

            // Cleared: nothing of it in the options, and shown as cleared.
            let cleared = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": app.id]),
                json: ["hints": [], "attestation_formats": [], "credential_protection_policy": ""],
                bearer: TestServer.adminToken)
            #expect(cleared.status == .ok, "\(cleared.text)")
            #expect(cleared["hints"] == [] && cleared["attestation_formats"] == [])
            #expect(cleared["credential_protection_policy"] == nil)
            let plain = try #require(try await registrationOptions(api, app, user: "alice")["publicKey"])
            #expect(plain["hints"] == nil && plain["attestationFormats"] == nil)
            #expect(plain["extensions"]?["credentialProtectionPolicy"] == nil)
            #expect(plain["extensions"]?["credProps"] == true)
        }
    }

    @Test("credProps.rk and prf.enabled: answered by verify, stored, listed; null when the client did not say")
    func registrationOutputs() async throws {
        try await TestServer.with { api in
            let app = try await application(api, [:])
            let results: [String: JSONValue] = [
                "credProps": ["rk": true],
                "prf": ["enabled": true, "results": ["first": .string(Self.prfSecret)]],
            ]
            let made = try await register(api, app, user: "alice", results: results, options: ["prf": [:]])
            #expect(made.status == .ok, "\(made.text)")
            #expect(made["discoverable"] == true && made["prf_enabled"] == true)
            let token = try #require(made["token"]?.stringValue)

            let notResident = try await register(api, app, user: "bob", results: ["credProps": ["rk": false]])
            #expect(notResident["discoverable"] == false && notResident["prf_enabled"] == nil)
            let silent = try await register(api, app, user: "carol", results: [:])
            #expect(silent.status == .ok && silent["discoverable"] == nil)

            let alice = try #require(try await listed(api, app, user: "alice").first)
            #expect(alice["discoverable"] == true && alice["prf_enabled"] == true)
            let bob = try #require(try await listed(api, app, user: "bob").first)
            #expect(bob["discoverable"] == false && bob["prf_enabled"] == .null)
            let carol = try #require(try await listed(api, app, user: "carol").first)
            #expect(carol["discoverable"] == .null && carol["prf_enabled"] == .null)

            let admin = try await api.send(
                .get, APIOperation.listApplicationUserCredentials.path(["id": app.id, "user_id": "bob"]),
                bearer: TestServer.adminToken)
            #expect(admin["credentials"]?.arrayValue?.first?["discoverable"] == false, "\(admin.text)")
            let mine = try await api.send(.get, APIOperation.listMyCredentials.path, bearer: token)
            let own = try #require(mine["credentials"]?.arrayValue?.first, "\(mine.text)")
            #expect(own["discoverable"] == true && own["prf_enabled"] == true)
        }
    }

    @Test("PRF inputs are checked, passed on in canonical base64url, and evalByCredential kept to allowCredentials")
    func prfInputs() async throws {
        try await TestServer.with { api in
            let app = try await application(api, [:])
            let first = Base64URL.encode(Array(repeating: UInt8(7), count: 32))
            let second = Base64URL.encode(Array(repeating: UInt8(9), count: 16))
            let asked = try await registrationOptions(
                api, app, user: "alice",
                ["prf": ["eval": ["first": .string(first), "second": .string(second + "==")]]])
            #expect(
                asked["publicKey"]?["extensions"]?["prf"]
                    == ["eval": ["first": .string(first), "second": .string(second)]], "\(asked.text)")
            let bare = try await registrationOptions(api, app, user: "alice", ["prf": [:]])
            #expect(bare["publicKey"]?["extensions"]?["prf"] == [:])

            let tooLong = Base64URL.encode(Array(repeating: UInt8(1), count: 257))
            for (prf, member) in [
                (["eval": ["first": "not base64url!"]], "prf.eval"), (["eval": ["first": ""]], "prf.eval"),
                (["eval": ["first": .string(first), "second": .string(tooLong)]], "prf.eval"),
                (["evalByCredential": ["AQID": ["first": .string(first)]]], "prf.evalByCredential"),
            ] as [(JSONValue, String)] {
                expectError(
                    try await registrationOptions(api, app, user: "alice", ["prf": prf]), .badRequest,
                    containing: member)
            }

            let made = try await register(api, app, user: "alice", results: [:])
            let credentialID = try #require(made["credential_id"]?.stringValue, "\(made.text)")
            let unknown = Base64URL.encode([1, 2, 3, 4])
            let request = try await authenticationOptions(
                api, app, user: "alice",
                [
                    "prf": [
                        "eval": ["first": .string(first)],
                        "evalByCredential": [
                            credentialID: ["first": .string(second)], unknown: ["first": .string(first)],
                        ],
                    ]
                ])
            #expect(
                request["publicKey"]?["extensions"]?["prf"]
                    == [
                        "eval": ["first": .string(first)],
                        "evalByCredential": [credentialID: ["first": .string(second)]],
                    ], "\(request.text)")
            expectError(
                try await authenticationOptions(
                    api, app, user: "alice", ["prf": ["evalByCredential": ["%%%": ["first": .string(first)]]]]),
                .badRequest, containing: "prf.evalByCredential")
        }
    }

    @Test("prf.results, the client's secret, reaches neither the store nor the log")
    func prfResultsStayWithTheClient() async throws {
        let server = TestServer()
        defer { server.remove() }
        let lines = LogCapture()
        let logger = lines.logger(label: "umfa-test")
        let (app, _) = try await buildApplication(configuration: server.configuration, logger: logger)
        let (clock, directory) = (server.clock, server.directory)
        try await app.exercise(.router) { client in
            let api = API(client: client, clock: clock, directory: directory)
            let vault = try await application(api, [:])
            let results: [String: JSONValue] = [
                "credProps": ["rk": true], "prf": ["enabled": true, "results": ["first": .string(Self.prfSecret)]],
            ]
            let made = try await register(api, vault, user: "alice", results: results, options: ["prf": [:]])
            #expect(made.status == .ok && made["prf_enabled"] == true, "\(made.text)")
        }
        #expect(!lines.text.isEmpty)
        #expect(!lines.text.contains(Self.prfSecret))
        let files = FileManager.default.enumerator(at: server.directory, includingPropertiesForKeys: nil)
        var read = 0
        while let file = files?.nextObject() as? URL {
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            read += data.count
            #expect(data.range(of: Data(Self.prfSecret.utf8)) == nil, "\(file.lastPathComponent) holds prf.results")
        }
        #expect(read > 0)
    }
}
