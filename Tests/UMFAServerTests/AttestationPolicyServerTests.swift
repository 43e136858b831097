import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import UMFAAuthenticator
import UMFAContract
import UMFAEncoding
import UMFAServer
import UMFATestSupport
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Per-application attestation policy, AAGUID lists, FIDO metadata names and revocation, as
/// the HTTP API shows them.
@Suite("Attestation policy over the API")
struct AttestationPolicyServerTests {
    static let softwareAAGUID = AAGUID.string(SoftwareAuthenticator.defaultAAGUID)

    /// A server whose attestation anchors are `anchors`.
    func withServer(
        anchors: AttestationTrustAnchors = .wellKnown(), _ body: @Sendable (API) async throws -> Void
    ) async throws {
        let server = TestServer()
        defer { server.remove() }
        var configuration = server.configuration
        configuration.attestationAnchors = anchors
        var logger = Logger(label: "umfa-test")
        logger.logLevel = .warning
        let (app, _) = try await buildApplication(configuration: configuration, logger: logger)
        let (clock, directory) = (server.clock, server.directory)
        try await app.exercise(.router) { client in
            try await body(API(client: client, clock: clock, directory: directory))
        }
    }

    func application(_ api: API, _ settings: [String: JSONValue]) async throws -> (Reply, TestApplication?) {
        var body: [String: JSONValue] = [
            "name": "Bank", "rp_id": .string(TestApplication.rpID),
            "origins": .array([.string(TestApplication.origin)]),
            "enrollment_policy": "open", "attestation": "direct",
        ]
        body.merge(settings) { $1 }
        let reply = try await api.post(
            APIOperation.createApplication.path, .object(body), bearer: TestServer.adminToken)
        guard reply.status == .created, let id = reply["application_id"]?.stringValue,
            let key = reply["api_key"]?.stringValue, let json = reply.json
        else { return (reply, nil) }
        return (reply, TestApplication(id: id, apiKey: key, settings: json))
    }

    /// Registers a fresh software authenticator (packed self attestation under `direct`).
    func register(_ api: API, _ app: TestApplication, user: String) async throws -> Reply {
        let options = try await api.registrationOptions(app, user: user)
        let creation = try #require(options["publicKey"]).decoded(CreationOptionsJSON.self)
        let credential = try Device.make().create(creation, userVerified: true)
        return try await api.post(
            APIOperation.registrationVerify.path,
            .object([
                "application_id": .string(app.id), "user_id": .string(user), "credential": try .encoding(credential),
            ]))
    }

    func credentials(_ api: API, _ app: TestApplication, user: String) async throws -> [JSONValue] {
        let reply = try await api.send(
            .get, APIOperation.listUserCredentials.path(["user_id": user]) + "?application_id=\(app.id)",
            bearer: app.apiKey)
        guard case .array(let items) = reply["credentials"] else { throw TestFailure("no list: \(reply.text)") }
        return items
    }

    @Test("admin: attestation_policy, aaguid_allow and aaguid_deny are validated, stored and shown")
    func adminSettings() async throws {
        try await withServer { api in
            let (bad, _) = try await application(api, ["attestation_policy": "strict"])
            expectError(bad, .badRequest, message: "attestation_policy must be any, self_or_trusted or trusted")
            let (noConveyance, _) = try await application(
                api, ["attestation_policy": "trusted", "attestation": "none"])
            expectError(
                noConveyance, .badRequest,
                message: "attestation_policy trusted needs attestation direct, indirect or enterprise")
            let (badAAGUID, _) = try await application(api, ["aaguid_deny": .array(["not-a-uuid"])])
            expectError(badAAGUID, .badRequest, message: "aaguid_allow and aaguid_deny must hold AAGUIDs (UUIDs)")

            let (created, app) = try await application(
                api,
                [
                    "attestation_policy": "self_or_trusted",
                    "aaguid_allow": .array([.string(Self.softwareAAGUID.uppercased())]),
                ])
            let application = try #require(app, "\(created.text)")
            #expect(created["attestation_policy"]?.stringValue == "self_or_trusted")
            #expect(created["aaguid_allow"] == .array([.string(Self.softwareAAGUID)]))
            let patched = try await api.send(
                .patch, APIOperation.updateApplication.path(["id": application.id]),
                json: .object(["aaguid_allow": .array([]), "aaguid_deny": .array([])]),
                bearer: TestServer.adminToken)
            #expect(patched.status == .ok)
            #expect(patched["aaguid_allow"] == nil || patched["aaguid_allow"] == .null)
            let shown = try await api.send(
                .get, APIOperation.getApplication.path(["id": application.id]), bearer: TestServer.adminToken)
            #expect(shown["attestation_policy"]?.stringValue == "self_or_trusted")
        }
    }

    @Test("self_or_trusted accepts self attestation; trusted refuses it with 403 and stores nothing")
    func policies() async throws {
        try await withServer { api in
            let (_, lenient) = try await application(api, ["attestation_policy": "self_or_trusted"])
            let accepted = try await register(api, try #require(lenient), user: "alice")
            #expect(accepted.status == .ok, "\(accepted.text)")

            let (_, strict) = try await application(api, ["attestation_policy": "trusted"])
            let app = try #require(strict)
            let refused = try await register(api, app, user: "alice")
            expectError(
                refused, .forbidden,
                message:
                    "Registration refused by the attestation policy: 7.1 step 24: attestation is self, which this relying party does not accept"
            )
            #expect(try await credentials(api, app, user: "alice").isEmpty)
        }
    }

    @Test("an AAGUID on the deny list, or missing from the allow list, is refused with 403")
    func aaguidLists() async throws {
        try await withServer { api in
            let (_, denying) = try await application(api, ["aaguid_deny": .array([.string(Self.softwareAAGUID)])])
            let denied = try await register(api, try #require(denying), user: "alice")
            #expect(denied.status == .forbidden && denied.text.contains("deny list"), "\(denied.text)")
            let other = "00000000-0000-0000-0000-0000000000aa"
            let (_, allowing) = try await application(api, ["aaguid_allow": .array([.string(other)])])
            let notAllowed = try await register(api, try #require(allowing), user: "alice")
            #expect(notAllowed.status == .forbidden && notAllowed.text.contains("allow list"), "\(notAllowed.text)")
        }
    }

    @Test("metadata names the authenticator in the credential list, and a revoked model gets 403")
    func metadata() async throws {
        let named = MetadataIndex(entries: [
            MetadataEntry(
                aaguid: Self.softwareAAGUID, description: "UMFA Software Authenticator", attestationRoots: [],
                statusReports: [.init(status: "FIDO_CERTIFIED", effectiveDate: "2024-01-01")])
        ])
        try await withServer(anchors: .wellKnown(metadata: named)) { api in
            let (_, created) = try await application(api, [:])
            let app = try #require(created)
            #expect(try await register(api, app, user: "alice").status == .ok)
            let listed = try await credentials(api, app, user: "alice")
            #expect(listed.first?["authenticator_name"]?.stringValue == "UMFA Software Authenticator")
        }
        let revoked = MetadataIndex(entries: [
            MetadataEntry(
                aaguid: Self.softwareAAGUID, description: "UMFA Software Authenticator", attestationRoots: [],
                statusReports: [.init(status: "REVOKED", effectiveDate: "2024-01-01")])
        ])
        try await withServer(anchors: .wellKnown(metadata: revoked)) { api in
            let (_, created) = try await application(api, [:])
            let app = try #require(created)
            let refused = try await register(api, app, user: "alice")
            #expect(refused.status == .forbidden && refused.text.contains("REVOKED"), "\(refused.text)")
            #expect(try await credentials(api, app, user: "alice").isEmpty)
        }
    }
}
