/// What proves an approval's decision (docs/ciba.md): the decision and number as the passkey
/// signed them, and the WebAuthn assertion itself, base64url. Anyone with the passkey's public key
/// can check it again: the signature covers `authenticatorData ‖ SHA-256(clientDataJSON)`, whose
/// challenge is `ApprovalChallenge.decision` of the transaction's challenge, this decision and
/// this number.
public struct ApprovalEvidence: Codable, Sendable, Equatable {
    /// `approve` or `deny`, as signed.
    public var decision: String
    /// The number typed, as signed; absent when none was sent.
    public var matchingNumber: String?
    /// The passkey's credential id.
    public var credentialId: String
    /// The challenge the passkey signed.
    public var challenge: String
    /// The assertion's client data.
    public var clientDataJSON: String
    /// The assertion's authenticator data.
    public var authenticatorData: String
    /// The assertion's signature.
    public var signature: String

    /// Creates evidence.
    public init(
        decision: String, matchingNumber: String?, credentialId: String, challenge: String, clientDataJSON: String,
        authenticatorData: String, signature: String
    ) {
        self.decision = decision
        self.matchingNumber = matchingNumber
        self.credentialId = credentialId
        self.challenge = challenge
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
    }

    /// An example with every member.
    public static let example = ApprovalEvidence(
        decision: "approve", matchingNumber: "42", credentialId: "AQIDBA", challenge: "AQIDBA",
        clientDataJSON: "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0", authenticatorData: "AQIDBA", signature: "AQIDBA")
}
