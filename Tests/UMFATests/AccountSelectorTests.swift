import Foundation
import Synchronization
import Testing
import UMFAContract
import UMFAEncoding

@testable import UMFA

/// Approvals that name no user, answered by the account the device's user picks.
@Suite("Account selector")
struct AccountSelectorTests {
    /// The backend asks whoever approves (`POST /api/umfa/approvals` without `user_id`).
    static func startOpenApproval(_ server: LiveServer, _ app: TestApplication, message: String) async throws
        -> UMFAAppLink
    {
        let body: JSONValue = .object(["application_id": .string(app.id), "message": .string(message)])
        let reply = try await server.send(.post, APIOperation.createApproval.path, json: body, bearer: app.apiKey)
        guard reply.status == 201, let link = reply["appLinkUri"]?.stringValue,
            let statusToken = reply["statusToken"]?.stringValue, !statusToken.isEmpty
        else { throw TestFailure("approvals failed: \(reply.status) \(reply.text)") }
        return try UMFAAppLink(uri: try server.reachable(link))
    }

    @Test("several accounts: the selector sees them and picks one; nil cancels; one account needs no choice")
    func selectsAmongAccounts() async throws {
        try await LiveServer.with { server in
            let app = try await server.createApplication(policy: "open")
            let storage = DeviceStorage()
            defer { storage.remove() }
            let config = server.config(app, storage: storage)
            _ = try await UMFAClient(config).enroll(userId: "ann")
            let seen = Mutex<[AccountSelectionContext]>([])
            func approve(_ message: String, choosing: String?) async throws(ZSMError) -> ApprovalResult {
                let link: UMFAAppLink
                do {
                    link = try await Self.startOpenApproval(server, app, message: message)
                } catch {
                    throw ZSMError(.serverError, "\(error)")
                }
                let client = UMFAClient(config, relyingParty: OutOfBandRelyingParty(link: link, config: config))
                return try await client.answerApproval { context in
                    seen.withLock { $0.append(context) }
                    return choosing
                }
            }

            // One account: it answers, nobody is asked.
            #expect(try await approve("Log in to the shop", choosing: nil).userId == "ann")
            #expect(seen.withLock { $0.isEmpty })

            _ = try await UMFAClient(config).enroll(userId: "ben")
            let chosen = try await approve("Pay 20 EUR", choosing: "ben")
            #expect(chosen.userId == "ben")
            let context = try #require(seen.withLock { $0.last })
            #expect(context.accounts.map(\.userId) == ["ann", "ben"])
            #expect(context.message == "Pay 20 EUR" && context.applicationId == app.id)

            let cancelled = await #expect(throws: ZSMError.self) { try await approve("Pay 30 EUR", choosing: nil) }
            #expect(cancelled?.code == .cancelled)
            let stranger = await #expect(throws: ZSMError.self) { try await approve("Pay 40 EUR", choosing: "eve") }
            #expect(stranger?.code == .invalidConfiguration)
        }
    }
}
