import UMFAEncoding

/// What an app shows before the user signs an approval (docs/contract.md §7, docs/ciba.md): the
/// message the backend sent, already checked against the challenge, so what the user confirms is
/// what the signature covers; the passkey then signs the user's decision and number too.
public struct TransactionConfirmation: Sendable, Hashable {
    /// The transaction.
    public let transactionId: String
    /// The message to show ("" when the backend sent none). With authorization details (a CIBA
    /// binding message and a payment, say), it ends with their canonical text.
    public let message: String
    /// The authorization details (RFC 9396) as the request gave them, for an app that shows
    /// them in its own way; the signed text is ``message``.
    public var authorizationDetails: JSONValue? = nil
    /// The user the approval names; `nil` for a usernameless one (by QR code).
    public let userId: String?
    /// Whether the user must type the number the other screen shows.
    public let needsMatchingNumber: Bool
}

/// The user's answer to a ``TransactionConfirmation``.
public enum ConfirmationAnswer: Sendable, Hashable {
    /// Approve; with number matching, the number the user typed.
    case approve(matchingNumber: String? = nil)
    /// Deny (the passkey still signs, so only this device can end the transaction).
    case deny
    /// Neither: nothing is signed (``ZSMError/Code/cancelled``). The link was redeemed to show
    /// the message, so it cannot be answered again: the transaction stays pending until it
    /// expires, and the backend asks anew if it still wants an answer.
    case cancel
}

/// Asks the user about an approval, after the challenge was checked and before anything is signed.
public typealias TransactionConfirmationHandler = @Sendable (TransactionConfirmation) async -> ConfirmationAnswer
