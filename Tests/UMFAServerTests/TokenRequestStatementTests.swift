import Foundation
import Testing
import UMFAContract
import UMFAWebAuthn

/// The OAuth form endpoints read the issuer's application and the client the form names in
/// one joined statement. A request that fell back to a
/// second read of the client would still be answered correctly, so only the statement counts
/// on `/metrics` can show it.
@Suite("Token requests: the application and the client in one statement")
struct TokenRequestStatementTests {
    /// The count of every store statement label on `/metrics`.
    static func statementCounts(_ api: API) async throws -> [String: Double] {
        let text = try await api.send(.get, "/metrics").text
        let name = "umfa_store_query_duration_seconds_count{"
        var counts: [String: Double] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            guard let open = line.range(of: "statement=\""),
                let close = line[open.upperBound...].firstIndex(of: "\""),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            counts[String(line[open.upperBound..<close]), default: 0] += value
        }
        return counts
    }

    /// The statements `request` ran, by label.
    static func statements(_ api: API, during request: () async throws -> Reply) async throws
        -> (reply: Reply, ran: [String: Double])
    {
        let before = try await statementCounts(api)
        let reply = try await request()
        let after = try await statementCounts(api)
        return (reply, after.merging(before, uniquingKeysWith: -).filter { $0.value != 0 })
    }

    @Test("refresh (HTTP Basic), client_credentials (client_secret_post) and introspection never read the client alone")
    func oneJoinedRead() async throws {
        try await TestServer.with(.live) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true)
            let flow = Authorization()
            let (redirect, _) = try await api.signUpThroughFlow(
                app, client: client, flow: flow, email: "lea@example.com", device: Device.make())
            let tokens = try await api.redeem(
                app, client: client, code: try #require(redirect["code"]), verifier: flow.verifier)
            let refresh = try #require(tokens["refresh_token"]?.stringValue, "\(tokens.text)")
            let machine = try await api.machineClient(app, method: "client_secret_post")
            let resourceServer = try await api.machineClient(app, scope: "introspect")
            // A resource server sees other clients' tokens only when the application lists it.
            _ = try await IntrospectionAccessTests.allowIntrospection(api, app, [resourceServer.id])

            let refreshed = try await Self.statements(api) {
                try await api.refresh(app, client: client, token: refresh)
            }
            let granted = try await Self.statements(api) {
                try await api.form(
                    .oauthToken, app,
                    [
                        ("grant_type", "client_credentials"), ("client_id", machine.id),
                        ("client_secret", try #require(machine.secret)),
                    ])
            }
            let accessToken = try #require(granted.reply["access_token"]?.stringValue, "\(granted.reply.text)")
            let introspected = try await Self.statements(api) {
                try await api.form(
                    .oauthIntrospect, app, [("token", accessToken)],
                    basic: (resourceServer.id, try #require(resourceServer.secret)))
            }
            #expect(refreshed.reply.status == .ok, "\(refreshed.reply.text)")
            #expect(introspected.reply["active"]?.boolValue == true, "\(introspected.reply.text)")
            for (request, ran) in [
                ("refresh", refreshed.ran), ("grant", granted.ran), ("introspect", introspected.ran),
            ] {
                #expect(ran["SELECT applications"] == 1, "\(request): \(ran)")
                #expect(ran["SELECT oauth_clients"] == nil, "\(request): \(ran)")
            }
            // The refresh on SQLite: the joined read, then the rotation's transaction (the consume,
            // the successor, and the passkey and profile read beside the grant), once each; no
            // read of the passkey or the profile of its own. (Background work such as the webhook
            // outbox may run statements of its own meanwhile, on other tables.)
            for label in ["SELECT applications", "UPDATE oauth_grants", "INSERT oauth_grants", "SELECT oauth_grants"] {
                #expect(refreshed.ran[label] == 1, "\(label): \(refreshed.ran)")
            }
            for label in ["SELECT credentials", "SELECT user_profiles"] {
                #expect(refreshed.ran[label] == nil, "\(label): \(refreshed.ran)")
            }
        }
    }
}
