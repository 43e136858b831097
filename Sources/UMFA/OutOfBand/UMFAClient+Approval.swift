import Foundation
import UMFAContract
import UMFAWebAuthnModel

/// What ``UMFAClient/answerApproval(userId:)`` returns.
public struct ApprovalResult: Sendable, Hashable {
    /// The user who answered.
    public let userId: String
    /// The passkey that signed, base64url.
    public let credentialId: String
    /// The server's trace id.
    public let traceId: String?
}

extension UMFAClient {
    /// Answers an out-of-band approval (docs/contract.md §7) with this device's passkey for `userId`,
    /// through an ``OutOfBandRelyingParty`` (whose decision, approve or deny, and matching number
    /// it sends). The login token goes to the backend that asked, through its status token, not
    /// to the phone.
    public func answerApproval(userId: String) async throws(ZSMError) -> ApprovalResult {
        guard relyingParty is OutOfBandRelyingParty else {
            throw ZSMError(.invalidConfiguration, "answerApproval needs an OutOfBandRelyingParty")
        }
        let (outcome, _) = try await signIn(userId: userId)
        return ApprovalResult(userId: outcome.userId, credentialId: outcome.credentialId, traceId: outcome.traceId)
    }
}

extension UMFAClient {
    /// The approvals waiting for `userId` (docs/contract.md §7), fetched with a device proof signed by
    /// the device key this device registered when it enrolled the user out of band. Answer one
    /// with an ``OutOfBandRelyingParty`` made from
    /// `UMFAAppLink(dispatchTokenResponse: approval.dispatchTokenResponse)`.
    /// - Throws: ``ZSMError`` `notEnrolled` when this device holds no device key for the user.
    public func pendingApprovals(userId: String) async throws(ZSMError) -> [PendingApproval] {
        try config.validate()
        let keys = DeviceSigningKeys(config: config)
        guard let (key, credentialId) = try keys.load(applicationId: config.applicationId, userId: userId) else {
            throw ZSMError(.notEnrolled, "this device has no device key for \(userId); enroll it out of band first")
        }
        let http = UMFAHTTPRelyingParty(config: config)
        let proof = { (url: URL) throws(ZSMError) -> String in
            "UMFA-Device "
                + (try DeviceSigningKeys.proof(key: key, credentialId: credentialId, method: "POST", url: url))
        }
        let body = PendingApprovalsRequest(applicationID: config.applicationId, userID: userId)
        let answer: PendingApprovalsResponse = try await http.post(
            .pendingApprovals, retry: false, authorization: proof, { _ in body })
        return answer.approvals
    }
}
