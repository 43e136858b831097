import Foundation
import Testing
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

@Suite("No user enumeration")
struct EnumerationTests {
    /// The shape of options: every key, and the keys of each allowed credential, with
    /// the challenge left out since it is always fresh.
    static func shape(_ reply: Reply) -> [String] {
        guard let publicKey = reply["publicKey"]?.objectValue else { return [] }
        var shape = publicKey.keys.sorted()
        for entry in publicKey["allowCredentials"]?.arrayValue ?? [] {
            shape.append("allow:" + (entry.objectValue?.keys.sorted().joined(separator: ",") ?? ""))
            shape.append("type:" + (entry["type"]?.stringValue ?? ""))
            shape.append("transports:" + ((try? entry["transports"]?.text()) ?? ""))
            shape.append("id-length:\(Base64URL.decode(entry["id"]?.stringValue ?? "")?.count ?? -1)")
        }
        for key in ["rpId", "userVerification", "timeout"] {
            shape.append("\(key):" + ((try? publicKey[key]?.text()) ?? ""))
        }
        return shape
    }

    static func allowedIDs(_ reply: Reply) -> [String] {
        reply["publicKey"]?["allowCredentials"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test("unknown users get the same 200 shape as known ones, stable per user, different between users")
    func unknownUsersLookKnown() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication(policy: "grant")
            _ = try await api.register(
                app, user: "alice", device: Device.make(),
                enrollmentToken: try await api.enrollmentToken(app, user: "alice"))

            let known = try await api.authenticationOptions(app, user: "alice")
            let ghost = try await api.authenticationOptions(app, user: "ghost")
            let ghostAgain = try await api.authenticationOptions(app, user: "ghost")
            let phantom = try await api.authenticationOptions(app, user: "phantom")
            for reply in [known, ghost, ghostAgain, phantom] {
                #expect(reply.status == .ok)
                #expect(Set(reply.json?.objectValue.map { Array($0.keys) } ?? []) == ["trace_id", "publicKey"])
                #expect(Self.allowedIDs(reply).count == 1)
            }
            #expect(Self.shape(ghost) == Self.shape(known))
            #expect(Self.shape(phantom) == Self.shape(known))
            #expect(Self.allowedIDs(ghost) == Self.allowedIDs(ghostAgain))
            #expect(Self.allowedIDs(ghost) != Self.allowedIDs(phantom))
            #expect(Self.allowedIDs(ghost) != Self.allowedIDs(known))
            #expect(ghost["publicKey"]?["challenge"] != ghostAgain["publicKey"]?["challenge"])

            // The same unknown user in another application gets another pseudo id.
            let otherApp = try await api.createApplication(policy: "grant")
            let elsewhere = try await api.authenticationOptions(otherApp, user: "ghost")
            #expect(Self.allowedIDs(elsewhere) != Self.allowedIDs(ghost))

            // Signing in as the unknown user fails like a wrong credential would.
            let device = Device.make()
            let request = try #require(ghost["publicKey"]).decoded(RequestOptionsJSON.self)
            #expect(throws: (any Error).self) { try device.get(request, userVerified: true) }
        }
    }
}
