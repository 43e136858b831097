import Foundation
import Synchronization
import Testing
import UMFAContract
import UMFAWebAuthn

@testable import UMFA

extension LiveServer {
    /// An approval with number matching; its app link (reachable) and matching number.
    func startMatchedApproval(_ app: TestApplication, user: String) async throws -> (link: String, number: String) {
        let body: JSONValue = .object([
            "application_id": .string(app.id), "user_id": .string(user), "message": .string("Sign in on the TV?"),
            "number_matching": .bool(true),
        ])
        let reply = try await send(.post, "/api/umfa/approvals", json: body, bearer: app.apiKey)
        let link = try #require(reply["appLinkUri"]?.stringValue)
        return (try reachable(link), try #require(reply["matchingNumber"]?.stringValue))
    }
}

@Suite("Approvals with a transaction-confirmation handler")
struct ApprovalConfirmationTests {
    /// A device enrolled for `user` out of band with a PIN; its sign-in configuration.
    static func enrolled(_ server: LiveServer, _ storage: DeviceStorage, user: String) async throws -> (
        TestApplication, ZSMConfig
    ) {
        let (app, config) = try await OutOfBandRegistrationTests.setUp(server, storage)
        let link = try await server.startEnrollment(app, user: user).enrollment.appLinkUri
        _ = try await OutOfBandRegistration(config: config).appLink(uri: link)
            .authenticatorSelector { _ in .pin }.pinEnroller { _ in "4711" }.run()
        var signIn = config
        signIn.userVerification = .pin { _ in "4711" }
        return (app, signIn)
    }

    @Test("the handler sees the checked message before anything is signed; approve, deny and cancel end as they say")
    func confirmation() async throws {
        try await LiveServer.with { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let (app, config) = try await Self.enrolled(server, storage, user: "ada")
            let seen = Mutex<[TransactionConfirmation]>([])

            func answer(_ message: String, with reply: ConfirmationAnswer) async throws -> ApprovalResult {
                let link = try UMFAAppLink(uri: try await server.startApproval(app, user: "ada", message: message))
                let relyingParty = OutOfBandRelyingParty(link: link, config: config) { asked in
                    seen.withLock { $0.append(asked) }
                    return reply
                }
                return try await UMFAClient(config, relyingParty: relyingParty).answerApproval(userId: "ada")
            }

            #expect(try await answer("Pay 12.00 EUR", with: .approve()).userId == "ada")
            #expect(try await answer("Sign in from Lyon?", with: .deny).userId == "ada")
            let cancelled = await #expect(throws: ZSMError.self) { try await answer("Delete account?", with: .cancel) }
            #expect(cancelled?.code == .cancelled)
            #expect(seen.withLock { $0.map(\.message) } == ["Pay 12.00 EUR", "Sign in from Lyon?", "Delete account?"])
            #expect(seen.withLock { $0.allSatisfy { $0.userId == "ada" && !$0.needsMatchingNumber } })

            // Number matching: the handler is told, and the number it gives is the one sent.
            let (link, number) = try await server.startMatchedApproval(app, user: "ada")
            let wrong = number == "10" ? "11" : "10"
            let matched = OutOfBandRelyingParty(link: try UMFAAppLink(uri: link), config: config) { asked in
                asked.needsMatchingNumber ? .approve(matchingNumber: number) : .cancel
            }
            #expect(try await UMFAClient(config, relyingParty: matched).answerApproval(userId: "ada").userId == "ada")
            let (otherLink, _) = try await server.startMatchedApproval(app, user: "ada")
            let guessed = OutOfBandRelyingParty(link: try UMFAAppLink(uri: otherLink), config: config) { _ in
                .approve(matchingNumber: wrong)
            }
            let refused = await #expect(throws: ZSMError.self) {
                try await UMFAClient(config, relyingParty: guessed).answerApproval(userId: "ada")
            }
            #expect(refused?.httpStatus == 403)
        }
    }
}
