import Foundation
import Synchronization
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

@testable import UMFA

extension LiveServer {
    /// An approval for `user`: its app link (reachable), status token and matching number.
    func startApproval(_ app: TestApplication, user: String, message: String, numberMatching: Bool) async throws
        -> (link: String, statusToken: String, number: String?)
    {
        let body: JSONValue = .object([
            "application_id": .string(app.id), "user_id": .string(user), "message": .string(message),
            "number_matching": .bool(numberMatching),
        ])
        let reply = try await send(.post, APIOperation.createApproval.path, json: body, bearer: app.apiKey)
        return (
            try reachable(try #require(reply["appLinkUri"]?.stringValue)),
            try #require(reply["statusToken"]?.stringValue), reply["matchingNumber"]?.stringValue
        )
    }

    /// Where the transaction of `statusToken` stands.
    func status(of statusToken: String) async throws -> String? {
        try await transactionStatus(statusToken)["status"]?.stringValue
    }
}

/// How often the device asked for its PIN.
final class PromptCounter: Sendable {
    let count = Mutex(0)
}

@Suite("Approvals with a transaction-confirmation handler")
struct ApprovalConfirmationTests {
    /// A device enrolled for `user` out of band with a PIN; its sign-in configuration.
    static func enrolled(_ server: LiveServer, _ storage: DeviceStorage, user: String, prompts: PromptCounter)
        async throws -> (TestApplication, ZSMConfig)
    {
        let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
        let link = try await server.startEnrollment(app, user: user).enrollment.appLinkUri
        _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
            .authenticatorSelector { _ in .pin }.pinEnroller { _ in "4711" }.run()
        var signIn = config
        signIn.userVerification = .pin { _ in
            prompts.count.withLock { $0 += 1 }
            return "4711"
        }
        return (app, signIn)
    }

    @Test("the handler sees the checked message before anything is signed; approve, deny and cancel end as they say")
    func confirmation() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let prompts = PromptCounter()
            let (app, config) = try await Self.enrolled(server, storage, user: "ada", prompts: prompts)
            let seen = Mutex<[TransactionConfirmation]>([])

            /// Answers an approval of `message` with `reply`; the transaction's status afterwards.
            func answer(_ message: String, with reply: ConfirmationAnswer) async throws -> (String?, ZSMError?) {
                let started = try await server.startApproval(app, user: "ada", message: message, numberMatching: false)
                let relyingParty = OutOfBandRelyingParty(link: try UMFAAppLink(uri: started.link), config: config) {
                    asked in
                    seen.withLock { $0.append(asked) }
                    return reply
                }
                var failure: ZSMError?
                do {
                    _ = try await UMFAClient(config, relyingParty: relyingParty).answerApproval(userId: "ada")
                } catch {
                    failure = error
                }
                return (try await server.status(of: started.statusToken), failure)
            }

            let approved = try await answer("Pay 12.00 EUR", with: .approve())
            #expect(approved.0 == "succeeded" && approved.1 == nil)
            let denied = try await answer("Sign in from Lyon?", with: .deny)
            #expect(denied.0 == "denied" && denied.1 == nil)
            let signedBefore = prompts.count.withLock { $0 }
            let cancelled = try await answer("Delete account?", with: .cancel)
            #expect(cancelled.0 == "pending" && cancelled.1?.code == .cancelled)
            #expect(prompts.count.withLock { $0 } == signedBefore, "the PIN is not asked for a cancelled approval")
            #expect(seen.withLock { $0.map(\.message) } == ["Pay 12.00 EUR", "Sign in from Lyon?", "Delete account?"])
            #expect(seen.withLock { $0.allSatisfy { $0.userId == "ada" && !$0.needsMatchingNumber } })

            // Number matching: the handler is told, and the number it gives is the one sent.
            let matched = try await server.startApproval(app, user: "ada", message: "TV", numberMatching: true)
            let number = try #require(matched.number)
            let right = OutOfBandRelyingParty(link: try UMFAAppLink(uri: matched.link), config: config) { asked in
                asked.needsMatchingNumber ? .approve(matchingNumber: number) : .cancel
            }
            _ = try await UMFAClient(config, relyingParty: right).answerApproval(userId: "ada")
            #expect(try await server.status(of: matched.statusToken) == "succeeded")
            let guessed = try await server.startApproval(app, user: "ada", message: "TV", numberMatching: true)
            let wrong = try #require(guessed.number) == "10" ? "11" : "10"
            let guessing = OutOfBandRelyingParty(link: try UMFAAppLink(uri: guessed.link), config: config) { _ in
                .approve(matchingNumber: wrong)
            }
            let refused = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config, relyingParty: guessing).answerApproval(userId: "ada")
            }
            #expect(refused?.httpStatus == 403)
            #expect(try await server.status(of: guessed.statusToken) == "failed")
        }
    }
}
