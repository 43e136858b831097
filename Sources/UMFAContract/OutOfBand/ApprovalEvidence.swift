/// What proves an approval's decision (docs/ciba.md): the decision and number as the passkey
/// signed them, and the WebAuthn assertion itself, base64url. Anyone with the passkey's public key
/// can check it again: the signature covers `authenticatorData ‖ SHA-256(clientDataJSON)`, whose
/// challenge is `ApprovalChallenge.decision` of the transaction's challenge, this decision and
/// this number; the transaction's challenge is `ApprovalChallenge.bytes` of the transaction id,
/// the message shown and the approval nonce.
public struct ApprovalEvidence: Codable, Sendable, Equatable {
    /// `approve` or `deny`, as signed.
    public var decision: String
    /// The number typed, as signed; absent when none was sent.
    public var matchingNumber: String?
    /// The passkey's credential id.
    public var credentialId: String
    /// The challenge the passkey signed.
    public var challenge: String
    /// The transaction's challenge the signed one derives from.
    public var transactionChallenge: String
    /// The approval nonce the transaction's challenge holds.
    public var approvalNonce: String
    /// The assertion's client data.
    public var clientDataJSON: String
    /// The assertion's authenticator data.
    public var authenticatorData: String
    /// The assertion's signature.
    public var signature: String

    /// Creates evidence.
    public init(
        decision: String, matchingNumber: String?, credentialId: String, challenge: String,
        transactionChallenge: String, approvalNonce: String, clientDataJSON: String, authenticatorData: String,
        signature: String
    ) {
        self.decision = decision
        self.matchingNumber = matchingNumber
        self.credentialId = credentialId
        self.challenge = challenge
        self.transactionChallenge = transactionChallenge
        self.approvalNonce = approvalNonce
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
    }

    /// An example with every member.
    public static let example = ApprovalEvidence(
        decision: "approve", matchingNumber: "42", credentialId: "AQIDBA", challenge: "AQIDBA",
        transactionChallenge: "BQYHCA", approvalNonce: "CQoLDA", clientDataJSON: "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0",
        authenticatorData: "AQIDBA", signature: "AQIDBA")
}
