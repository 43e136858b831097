import Crypto

/// The challenge of an approval (DESIGN.md §7), which server and phone both compute:
/// `SHA-256("UMFA approval v1" ‖ 0x00 ‖ transaction_id ‖ 0x00 ‖ message ‖ 0x00 ‖ nonce)`. The phone
/// recomputes it from the message it shows and refuses options whose challenge differs, so the
/// signature covers what the user saw.
public enum ApprovalChallenge {
    /// The challenge bytes.
    public static func bytes(transactionID: String, message: String, nonce: [UInt8]) -> [UInt8] {
        var input = Array("UMFA approval v1".utf8)
        input.append(0)
        input += Array(transactionID.utf8)
        input.append(0)
        input += Array(message.utf8)
        input.append(0)
        input += nonce
        return Array(SHA256.hash(data: input))
    }
}
