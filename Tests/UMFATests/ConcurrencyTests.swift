import Foundation
import Testing
import UMFA

@Suite("Concurrent sign-ins")
struct ConcurrencyTests {
    @Test("fifty concurrent sign-ins of one user from one client all succeed with strictly increasing counters")
    func fiftyAtOnce() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            let recorder = RecordingRelyingParty(UMFAHTTPRelyingParty(config: config))
            let client = UMFAClient(config, relyingParty: recorder)
            let enrolled = try await client.enroll(userId: "zoe")

            let outcomes = await withTaskGroup(of: Result<String, ZSMError>.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        do throws(ZSMError) {
                            return .success(try await client.authenticate(userId: "zoe").token)
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                var outcomes: [Result<String, ZSMError>] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let failures = outcomes.compactMap { outcome -> ZSMError? in
                if case .failure(let error) = outcome { return error }
                return nil
            }
            #expect(
                failures.count == 0,
                "\(failures.count) failed, first: \(failures.first.map(String.init(describing:)) ?? "")")
            let tokens = outcomes.compactMap { try? $0.get() }
            #expect(tokens.count == 50)
            #expect(Set(tokens).count == 50)

            // The counters reached the server in the order they were signed: no duplicates, no regressions.
            let counts = recorder.signCounts
            #expect(counts.count == 50)
            #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 < $1 })
            #expect(Set(counts).count == 50)
            let listed = try await server.credentials(app, user: "zoe").first?.objectValue
            #expect(listed?["credential_id"]?.stringValue == enrolled.credentialId)
            #expect(listed?["sign_count"]?.intValue == counts.max().map(Int.init))
            #expect(try await server.validate(app, user: "zoe", token: try #require(tokens.last)).status == 200)
        }
    }
}
