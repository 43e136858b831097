import ArgumentParser
import Foundation
import UMFA
import UMFAContract

/// `umfa approvals approve / deny`: the device's side of an approval (DESIGN.md §7) from its
/// app link. The message is shown on standard error before anything is signed; the signature
/// covers it (the SDK refuses options whose challenge does not bind it).
struct ApprovalsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approvals", abstract: "Approve or deny an out-of-band request as a device.",
        subcommands: [Approve.self, Deny.self])

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
            FileHandle.standardError.write(Data("Request: \(redeemed.message ?? "(no message)")\n".utf8))
            let result = try await client.answerApproval(userId: user)
            return [
                "status": decision == .approve ? "succeeded" : "denied", "user_id": result.userId,
                "credential_id": result.credentialId, "transaction_id": redeemed.transactionID,
                "message": redeemed.message ?? "",
            ]
        }
    }
}
