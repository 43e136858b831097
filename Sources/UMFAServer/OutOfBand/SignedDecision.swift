import UMFAContract
import UMFAEncoding
import UMFAWebAuthnTypes

/// The decision an approval's passkey signed (docs/ciba.md): the challenge of its assertion is
/// ``ApprovalChallenge/decision(_:decision:matchingNumber:)`` of the transaction's challenge, so a
/// decision or number changed after signing no longer matches what was signed.
struct SignedDecision: Equatable {
    /// `approve` or `deny`.
    let decision: String
    /// The number signed; `nil` when none was.
    let matchingNumber: String?

    static let decisions = ["approve", "deny"]
    /// Every number number matching shows (``OutOfBandService/startApproval``).
    static let shownNumbers = (10...99).map(String.init)

    /// The decision of this transaction (whose challenge is `transaction`) that `signed` is,
    /// trying the number that was sent, none, and every number the server shows; `nil` when
    /// `signed` is no decision on this transaction (another challenge altogether).
    static func recognize(_ signed: [UInt8], transaction: [UInt8], sentNumber: String?) -> SignedDecision? {
        var numbers: [String?] = [sentNumber, nil]
        numbers += shownNumbers.map { Optional($0) }
        for decision in decisions {
            for number in numbers
            where ApprovalChallenge.decision(transaction, decision: decision, matchingNumber: number) == signed {
                return SignedDecision(decision: decision, matchingNumber: number.flatMap { $0.isEmpty ? nil : $0 })
            }
        }
        return nil
    }

    /// What proves this decision: the assertion that signed it, and what its challenge derives
    /// from.
    func evidence(
        _ credential: AuthenticationResponseJSON, signed: [UInt8], transactionChallenge: [UInt8], nonce: [UInt8]
    ) -> ApprovalEvidence {
        ApprovalEvidence(
            decision: decision, matchingNumber: matchingNumber, credentialId: Base64URL.encode(credential.rawId.bytes),
            challenge: Base64URL.encode(signed), transactionChallenge: Base64URL.encode(transactionChallenge),
            approvalNonce: Base64URL.encode(nonce),
            clientDataJSON: Base64URL.encode(credential.response.clientDataJSON.bytes),
            authenticatorData: Base64URL.encode(credential.response.authenticatorData.bytes),
            signature: Base64URL.encode(credential.response.signature.bytes))
    }
}
