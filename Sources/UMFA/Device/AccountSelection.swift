import Foundation
import UMFAContract

/// An account this device holds a passkey for.
public struct EnrolledAccount: Sendable, Hashable {
    /// The user.
    public let userId: String
    /// The passkey, base64url.
    public let credentialId: String
    /// When it was enrolled here.
    public let enrolledAt: Date
    /// How it is protected: `none`, `pin`, `password`, `biometric`, `devicePasscode`.
    public let userVerification: String
}

/// What an ``AccountSelector`` chooses from (Nevis: `NMAAccountSelectionContext`).
public struct AccountSelectionContext: Sendable, Hashable {
    /// The accounts of the application this device holds a passkey for, oldest first.
    public let accounts: [EnrolledAccount]
    /// The application.
    public let applicationId: String
    /// The out-of-band transaction.
    public let transactionId: String
    /// The message the approval shows, if any.
    public let message: String?
}

/// Chooses which enrolled account answers an approval that names no user; the chosen
/// ``EnrolledAccount/userId``, or `nil` to cancel (``ZSMError/Code/cancelled``).
public typealias AccountSelector = @Sendable (AccountSelectionContext) async -> String?

extension UMFAClient {
    /// The accounts of ``ZSMConfig/applicationId`` this device holds a passkey for, oldest first.
    public func enrolledAccounts() throws(ZSMError) -> [EnrolledAccount] {
        try config.validate()
        let device = try device()
        return try device.enrollments.entries(applicationId: config.applicationId).filter {
            !device.isSoftware || device.holdsKey(credentialId: $0.credentialId)
        }.map {
            EnrolledAccount(
                userId: $0.userId, credentialId: $0.credentialId, enrolledAt: $0.enrolledAt,
                userVerification: $0.userVerification)
        }
    }

    /// Answers an out-of-band approval with the account it is for: the user the approval
    /// names, else this device's only account, else the one `accountSelector` chooses when
    /// several are enrolled (Nevis's account selector).
    /// - Throws: `notEnrolled` when this device holds no passkey of the application (or none
    ///   for the named user); `cancelled` when the selector chose nothing;
    ///   `invalidConfiguration` when it chose an account that is not enrolled here; the errors
    ///   of ``answerApproval(userId:)``.
    public func answerApproval(accountSelector: @escaping AccountSelector) async throws(ZSMError) -> ApprovalResult {
        guard let outOfBand = relyingParty as? OutOfBandRelyingParty else {
            throw ZSMError(.invalidConfiguration, "answerApproval needs an OutOfBandRelyingParty")
        }
        let redeemed = try await outOfBand.redeem()
        if let named = redeemed.userID { return try await answerApproval(userId: named) }
        let accounts = try enrolledAccounts()
        switch accounts.count {
        case 0:
            throw ZSMError(.notEnrolled, "this device holds no passkey for the application; enroll first")
        case 1:
            return try await answerApproval(userId: accounts[0].userId)
        default:
            let context = AccountSelectionContext(
                accounts: accounts, applicationId: config.applicationId, transactionId: redeemed.transactionID,
                message: redeemed.message)
            guard let chosen = await accountSelector(context) else {
                throw ZSMError(.cancelled, "no account was selected")
            }
            guard accounts.contains(where: { $0.userId == chosen }) else {
                throw ZSMError(.invalidConfiguration, "the account selector chose an account not enrolled here")
            }
            return try await answerApproval(userId: chosen)
        }
    }
}
