import Foundation
import Testing
import UMFAContract
import UMFAWebAuthn

/// The operator metrics on `/metrics` (docs/operators/metrics.md): ceremony and grant outcomes by type, store
/// statement latency, signing operations — each label from a fixed set, never a value.
@Suite("Operator metrics")
struct OperatorMetricsTests {
    /// The value of the sample `name{labels…}` (labels in any order), or `nil` when absent.
    static func sample(_ text: String, _ name: String, _ labels: [String: String]) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") {
            guard let close = line.lastIndex(of: "}") else { continue }
            let inside = line[line.index(line.startIndex, offsetBy: name.count + 1)..<close]
            let pairs = Dictionary(
                inside.split(separator: ",").compactMap { pair -> (String, String)? in
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { return nil }
                    return (String(parts[0]), String(parts[1]).trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
                }, uniquingKeysWith: { $1 })
            if labels.allSatisfy({ pairs[$0.key] == $0.value }) {
                return line.split(separator: " ").last.flatMap { Double($0) }
            }
        }
        return nil
    }

    @Test("ceremonies, grants, store statements and signatures are counted by kind and outcome")
    func operatorMetrics() async throws {
        try await TestServer.with(.live) { api in
            let app = try await api.createApplication(policy: "grant")
            let device = Device.make()
            _ = try await api.register(
                app, user: "alice", device: device, enrollmentToken: try await api.enrollmentToken(app, user: "alice"))
            _ = try await api.authenticate(app, user: "alice", device: device)
            // A second sign-in, then its replay: refused.
            let assertion = try await api.assertion(app, user: "alice", device: device)
            #expect(try await api.verifyAssertion(app, user: "alice", credential: assertion).status == .ok)
            #expect(try await api.verifyAssertion(app, user: "alice", credential: assertion).status == .unauthorized)
            let client = try await api.machineClient(app)
            let grant: [(String, String)] = [("grant_type", "client_credentials")]
            #expect(
                try await api.form(.oauthToken, app, grant, basic: (client.id, try #require(client.secret))).status
                    == .ok)
            _ = try await api.form(.oauthToken, app, grant, basic: (client.id, "umfa_cs_wrong"))
            _ = try await api.form(.oauthToken, app, [("grant_type", "made-up-\(UUID())")], basic: (client.id, "x"))

            let text = try await api.send(.get, "/metrics").text
            #expect(
                Self.sample(text, "umfa_ceremonies_total", ["ceremony": "registration", "outcome": "succeeded"]) == 1)
            #expect(Self.sample(text, "umfa_ceremonies_total", ["ceremony": "sign_in", "outcome": "succeeded"]) == 2)
            #expect(Self.sample(text, "umfa_ceremonies_total", ["ceremony": "sign_in", "outcome": "failed"]) == 1)
            #expect(
                Self.sample(text, "umfa_oauth_grants_total", ["grant_type": "client_credentials", "outcome": "issued"])
                    == 1)
            #expect(
                Self.sample(
                    text, "umfa_oauth_grants_total", ["grant_type": "client_credentials", "outcome": "invalid_client"])
                    == 1)
            #expect(Self.sample(text, "umfa_oauth_grants_total", ["grant_type": "other"]) != nil, "unknown types")
            #expect(!text.contains("made-up-"), "a caller's value never becomes a label")
            // Three login tokens (registration, two sign-ins) and one access token, all RS256.
            #expect(Self.sample(text, "umfa_token_signing_duration_seconds_count", ["alg": "RS256"]) == 4)
            let credentialReads = Self.sample(
                text, "umfa_store_query_duration_seconds_count", ["statement": "SELECT credentials"])
            #expect((credentialReads ?? 0) >= 3)
            #expect(
                Self.sample(text, "umfa_store_query_duration_seconds_count", ["statement": "INSERT challenges"]) != nil)
            #expect(!text.contains("alice"))
        }
    }
}
