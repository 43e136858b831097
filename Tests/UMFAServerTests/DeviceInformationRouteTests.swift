import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import UMFAContract
import UMFAEncoding
import UMFAServer

/// `POST /api/umfa/device-information` (docs/out-of-band.md): only the device proven by a
/// user's own device key changes that key's name and push token.
@Suite("Out-of-band devices: device information after enrollment")
struct DeviceInformationRouteTests {
    static let path = APIOperation.updateDeviceInformation.path

    /// Posts a device-information change for `user` with `proof`.
    static func update(
        _ api: API, _ app: TestApplication, user: String, name: String = "New phone", pushToken: String? = "fcm-2",
        proof: String?
    ) async throws -> Reply {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let proof { headers[.authorization] = "UMFA-Device \(proof)" }
        var body: [String: JSONValue] = [
            "application_id": .string(app.id), "user_id": .string(user), "name": .string(name),
        ]
        if let pushToken { body["push_token"] = .string(pushToken) }
        let response = try await api.client.execute(
            uri: path, method: .post, headers: headers,
            body: ByteBuffer(bytes: try JSONEncoder().encode(JSONValue.object(body))))
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    @Test(
        "another user's key, no proof, a replayed proof or a proof for another route change nothing; the owner's does")
    func onlyTheOwnersDevice() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            let (_, aliceKey, aliceCredential) = try await OutOfBandDeviceTests.enroll(api, app, user: "alice")
            let (_, bobKey, bobCredential) = try await OutOfBandDeviceTests.enroll(api, app, user: "bob")
            // Bob's device tries to take Alice's pushes, with his own valid proof.
            let bobs = OutOfBandDeviceTests.proof(bobKey, credential: bobCredential, "POST", Self.path)
            let stolen = try await Self.update(api, app, user: "alice", pushToken: "attacker", proof: bobs)
            #expect(stolen.status == .unauthorized, "\(stolen.text)")
            #expect(try await Self.update(api, app, user: "alice", proof: nil).status == .unauthorized)
            let otherRoute = OutOfBandDeviceTests.proof(
                aliceKey, credential: aliceCredential, "POST", APIOperation.pendingApprovals.path)
            #expect(try await Self.update(api, app, user: "alice", proof: otherRoute).status == .unauthorized)
            let tooLong = OutOfBandDeviceTests.proof(aliceKey, credential: aliceCredential, "POST", Self.path)
            let refused = try await Self.update(
                api, app, user: "alice", name: String(repeating: "n", count: 129), proof: tooLong)
            #expect(refused.status == .badRequest, "\(refused.text)")

            let proof = OutOfBandDeviceTests.proof(aliceKey, credential: aliceCredential, "POST", Self.path)
            let changed = try await Self.update(api, app, user: "alice", pushToken: "fcm-alice-2", proof: proof)
            #expect(changed.status == .ok, "\(changed.text)")
            #expect(changed["push_token"]?.stringValue == "fcm-alice-2")
            #expect(changed["credential_id"]?.stringValue == aliceCredential)
            let replayed = try await Self.update(api, app, user: "alice", pushToken: "attacker", proof: proof)
            #expect(replayed.status == .unauthorized, "\(replayed.text)")
        }
    }
}
