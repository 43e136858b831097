import ArgumentParser
import Foundation
import UMFA
import UMFAContract
import UMFAEncoding

/// `umfa approvals list / watch / approve / deny`: the device's side of an approval (docs/contract.md
/// §7). `list` and `watch` find the pending ones with a device proof (the device key registered
/// by `umfa enroll --app-link`); `approve` and `deny` answer one from its app link. The message
/// is shown on standard error before anything is signed; the signature covers it (the SDK
/// refuses options whose challenge does not bind it).
struct ApprovalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approvals", abstract: "List, watch, approve or deny out-of-band requests as a device.",
        subcommands: [List.self, Watch.self, Approve.self, Deny.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Print the approvals waiting for --user as one JSON object, each with its app link.")
        @OptionGroup var device: DeviceOptions

        func run() async throws {
            let config = try device.config()
            let user = try device.userID
            let client = UMFAClient(config)
            try await DeviceOptions.report { () async throws(ZSMError) in
                let approvals = try await client.pendingApprovals(userId: user)
                return ["user_id": user, "approvals": approvals.map(ApprovalsCommand.entry)]
            }
        }
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Print each approval for --user as it arrives (server-sent events), one JSON line each.")
        @OptionGroup var device: DeviceOptions
        @Option(help: "Stop after this many approvals.") var count: Int?
        @Option(name: .customLong("max-seconds"), help: "Stop after this many seconds (1-300).")
        var maxSeconds: Int = 300

        func validate() throws {
            guard (1...300).contains(maxSeconds) else { throw ValidationError("--max-seconds must be 1 to 300") }
            if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        }

        func run() async throws {
            let config = try device.config()
            let user = try device.userID
            var seen = 0
            do {
                for try await approval in UMFAClient(config).approvalEvents(userId: user, maxSeconds: maxSeconds) {
                    let line = try JSONSerialization.data(
                        withJSONObject: ApprovalsCommand.entry(approval),
                        options: [.sortedKeys, .withoutEscapingSlashes])
                    FileHandle.standardOutput.write(line + Data("\n".utf8))
                    seen += 1
                    if let count, seen >= count { return }
                }
            } catch {
                CommandIO.printError("\(error)")
                throw ExitCode(1)
            }
            if let count, seen < count {
                CommandIO.printError("the stream ended after \(seen) of \(count) approvals")
                throw ExitCode(1)
            }
        }
    }

    /// One approval as the commands print it, with the app link that answers it (`null` when
    /// the server sent a payload that is not a UMFA link).
    static func entry(_ approval: PendingApproval) -> [String: Any] {
        [
            "transaction_id": approval.transactionID, "message": approval.message,
            "created_at": approval.createdAt, "expires_at": approval.expiresAt,
            "app_link": (try? UMFAAppLink(dispatchTokenResponse: approval.dispatchTokenResponse))?.uri ?? NSNull(),
        ]
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "approve", abstract: "Approve the request of an app link with this device's passkey.")
        @OptionGroup var decision: DecisionOptions
        @Option(help: "The number the other screen shows (number matching).") var number: String?

        func run() async throws { try await decision.run(.approve, number: number) }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deny", abstract: "Deny the request of an app link (the passkey proves who denies).")
        @OptionGroup var decision: DecisionOptions

        func run() async throws { try await decision.run(.deny, number: nil) }
    }
}

/// What both decisions take.
struct DecisionOptions: ParsableArguments {
    @OptionGroup var device: DeviceOptions

    @Option(name: .customLong("app-link"), parsing: .unconditional, help: "The app link from the QR code.")
    var appLink: String

    func run(_ decision: OutOfBandRelyingParty.Decision, number: String?) async throws {
        let link: UMFAAppLink
        do {
            link = try UMFAAppLink(uri: appLink)
        } catch {
            throw ValidationError(error.description)
        }
        let config = try device.config(link: link)
        let relyingParty = OutOfBandRelyingParty(
            link: link, config: config, decision: decision, matchingNumber: number)
        let client = UMFAClient(config, relyingParty: relyingParty)
        let given = device.user
        try await DeviceOptions.report { () async throws(ZSMError) in
            let redeemed = try await relyingParty.redeem()
            guard redeemed.operation == "authentication" else {
                throw ZSMError(.invalidConfiguration, "the app link is an enrollment; use umfa enroll --app-link")
            }
            guard let user = redeemed.userID ?? given, given == nil || given == user else {
                throw ZSMError(.invalidConfiguration, "give --user: the request names no user, or another one")
            }
            // The message (with the canonical text of any authorization details, escaped already)
            // as lines a terminal cannot be steered by: every other unsafe scalar as an escape.
            var shown = String.UnicodeScalarView()
            for scalar in (redeemed.message ?? "(no message)").unicodeScalars {
                if scalar != "\n", LogText.isUnsafe(scalar) {
                    shown.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
                } else {
                    shown.append(scalar)
                }
            }
            FileHandle.standardError.write(Data("Request: \(String(shown))\n".utf8))
            let result = try await client.answerApproval(userId: user)
            return [
                "status": decision == .approve ? "succeeded" : "denied", "user_id": result.userId,
                "credential_id": result.credentialId, "transaction_id": redeemed.transactionID,
                "message": redeemed.message ?? "",
                "authorization_details": redeemed.authorizationDetails.flatMap {
                    try? JSONSerialization.jsonObject(with: JSONEncoder().encode($0))
                } ?? NSNull(),
            ]
        }
    }
}
