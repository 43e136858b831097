import Foundation
import Hummingbird
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("Bad input")
struct BadInputTests {
    static let deviceRoutes = [
        APIOperation.registrationOptions.path, APIOperation.registrationVerify.path,
        APIOperation.authenticationOptions.path,
        APIOperation.authenticationVerify.path, APIOperation.unenroll.path,
    ]

    /// A 4xx in the documented shape: never a 500, never a crash.
    static func expectRefused(_ reply: Reply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((400..<500).contains(Int(reply.status.code)), "\(what): \(reply.text)", sourceLocation: sourceLocation)
        expectError(reply, reply.status, sourceLocation: sourceLocation)
    }

    @Test("malformed bodies, wrong types, huge bodies and unknown routes get 4xx in the error shape")
    func malformedRequests() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let bodies = [
                "{", "[]", "null", "\"text\"", "", "{\"application_id\": 5, \"user_id\": \"x\"}",
                "{\"application_id\": \"\(app.id)\", \"user_id\": [\"x\"]}",
                "{\"application_id\": \"not-a-uuid\", \"user_id\": \"x\"}",
                "{\"application_id\": \"\(app.id)\", \"user_id\": \"\(String(repeating: "u", count: 257))\"}",
                "{\"application_id\": \"\(app.id)\", \"user_id\": \"\"}",
                String(repeating: "[", count: 60_000),
            ]
            let verifyBodies = [
                "{\"application_id\": \"\(app.id)\", \"user_id\": \"x\"}",
                "{\"application_id\": \"\(app.id)\", \"user_id\": \"x\", \"credential\": \"nope\"}",
                "{\"application_id\": \"\(app.id)\", \"user_id\": \"x\", \"credential\": {\"id\": 1}}",
            ]
            for route in Self.deviceRoutes {
                for body in bodies + (route.hasSuffix("options") ? [] : verifyBodies) {
                    let reply = try await api.send(.post, route, raw: body)
                    Self.expectRefused(reply, "\(route) \(body.prefix(40))")
                }
            }
            let malformed = try await api.send(.post, APIOperation.registrationOptions.path, raw: "{")
            expectError(malformed, .badRequest, message: "The request body must be a JSON object")
            let typed = try await api.send(
                .post, APIOperation.authenticationOptions.path,
                raw: "{\"application_id\": 5, \"trace_id\": \"typed-1\"}")
            expectError(
                typed, .badRequest, message: "Malformed request: field application_id has the wrong type",
                traceID: "typed-1")
            let notUUID = try await api.send(
                .post, APIOperation.authenticationOptions.path, raw: "{\"application_id\": \"nope\"}")
            expectError(notUUID, .badRequest, message: "application_id must be a UUID")
            let unknownApp = try await api.send(
                .post, APIOperation.authenticationOptions.path, raw: "{\"application_id\": \"\(UUID().uuidString)\"}")
            expectError(unknownApp, .badRequest, message: "Unknown application_id")

            let huge = "{\"application_id\": \"\(app.id)\", \"user_id\": \"\(String(repeating: "a", count: 70_000))\"}"
            for route in Self.deviceRoutes + [APIOperation.validateToken.path, APIOperation.createApplication.path] {
                let reply = try await api.send(.post, route, raw: huge, bearer: app.apiKey)
                expectError(reply, .contentTooLarge, message: "The request body is too large (at most 65536 bytes)")
            }

            for (method, path) in [
                (HTTPRequest.Method.get, "/nope"), (.post, "/api/umfa/nope"),
                (.get, APIOperation.registrationOptions.path),
                (.delete, "/health"),
            ] {
                let reply = try await api.send(method, path)
                expectError(reply, .notFound, message: "Not Found")
            }
        }
    }

    @Test("garbage in credentials never gives 500 and changes nothing; the user still signs in")
    func garbageCredentials() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "open")
            let device = Device.make()
            let alice = try await api.register(app, user: "alice", device: device)
            let listPath = APIOperation.listUserCredentials.path(["user_id": "alice"]) + "?application_id=\(app.id)"
            let before = try await api.send(.get, listPath, bearer: app.apiKey)

            let bomb = Base64URL.encode([UInt8](repeating: 0x81, count: 20_000) + [0x00])
            let hugeLength = Base64URL.encode([0x5b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00])
            let notJSON = Base64URL.encode(Array("not json".utf8))
            let registrationMutations: [(String, (inout [String: JSONValue]) -> Void)] = [
                ("random attestationObject", { $0["attestationObject"] = .string(Base64URL.encode(Array(0..<64))) }),
                ("nested CBOR bomb", { $0["attestationObject"] = .string(bomb) }),
                ("huge CBOR length", { $0["attestationObject"] = .string(hugeLength) }),
                ("empty attestationObject", { $0["attestationObject"] = "" }),
                ("clientDataJSON not JSON", { $0["clientDataJSON"] = .string(notJSON) }),
                ("clientDataJSON not base64url", { $0["clientDataJSON"] = "***" }),
                ("attestationObject a number", { $0["attestationObject"] = .number(7) }),
            ]
            for (name, mutate) in registrationMutations {
                let reply = try await Self.register(api, app, user: "eve", device: Device.make(), mutate: mutate)
                Self.expectRefused(reply, name)
            }

            let authenticationMutations: [(String, (inout [String: JSONValue]) -> Void)] = [
                ("signature garbage", { $0["signature"] = .string(Base64URL.encode(Array(0..<70))) }),
                ("authenticatorData short", { $0["authenticatorData"] = .string(Base64URL.encode([1, 2, 3])) }),
                (
                    "userHandle foreign",
                    { $0["userHandle"] = .string(Base64URL.encode(Array(repeating: 9, count: 32))) }
                ),
                ("clientDataJSON not JSON", { $0["clientDataJSON"] = .string(notJSON) }),
                ("signature missing", { $0["signature"] = nil }),
            ]
            for (name, mutate) in authenticationMutations {
                for path in [APIOperation.authenticationVerify.path, APIOperation.unenroll.path] {
                    let assertion = try await api.assertion(app, user: "alice", device: device)
                    var credential = try JSONValue.encoding(assertion).objectValue ?? [:]
                    var response = credential["response"]?.objectValue ?? [:]
                    mutate(&response)
                    credential["response"] = .object(response)
                    let reply = try await api.post(
                        path,
                        .object([
                            "application_id": .string(app.id), "user_id": "alice", "credential": .object(credential),
                        ]))
                    Self.expectRefused(reply, "\(path) \(name)")
                }
            }
            let rawIDGarbage = try await api.post(
                APIOperation.authenticationVerify.path,
                .object([
                    "application_id": .string(app.id),
                    "credential": .object(["id": "!!", "rawId": "!!", "type": "public-key", "response": .object([:])]),
                ]))
            Self.expectRefused(rawIDGarbage, "rawId garbage")

            let after = try await api.send(.get, listPath, bearer: app.apiKey)
            #expect(after["credentials"] == before["credentials"])
            #expect(after["credentials"]?.arrayValue?.count == 1)
            let signIn = try await api.authenticate(app, user: "alice", device: device)
            #expect(signIn.credentialID == alice.credentialID)
        }
    }

    /// registration/options, the authenticator, then registration/verify with the response's
    /// `response` members changed by `mutate`.
    static func register(
        _ api: API, _ app: TestApplication, user: String, device: Device,
        mutate: (inout [String: JSONValue]) -> Void
    ) async throws -> Reply {
        let options = try await api.registrationOptions(app, user: user)
        let creation = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
        var credential = try JSONValue.encoding(try device.create(creation, userVerified: true)).objectValue ?? [:]
        var response = credential["response"]?.objectValue ?? [:]
        mutate(&response)
        credential["response"] = .object(response)
        return try await api.post(
            APIOperation.registrationVerify.path,
            .object(["application_id": .string(app.id), "user_id": .string(user), "credential": .object(credential)]))
    }
}
