import Crypto

/// The challenges of an approval (docs/contract.md §7), which server and phone both compute.
///
/// The server's options carry the transaction's challenge,
/// `SHA-256("UMFA approval v1" ‖ 0x00 ‖ transaction_id ‖ 0x00 ‖ message ‖ 0x00 ‖ nonce)`: the phone
/// recomputes it from the message it shows and refuses options whose challenge differs. The
/// passkey then signs the decision's challenge (``decision(_:decision:matchingNumber:)``), so the
/// signature covers what the user saw, what they decided and the number they typed.
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

    /// The challenge the passkey signs for a decision on the transaction whose challenge is
    /// `transaction`: `SHA-256("UMFA approval decision v1" ‖ 0x00 ‖ transaction ‖ 0x00 ‖ decision ‖ 0x00 ‖
    /// matching_number)`, with the number as sent (empty when none is).
    /// - Parameters:
    ///   - transaction: the transaction's challenge, from ``bytes(transactionID:message:nonce:)``.
    ///   - decision: `approve` or `deny`, as `dispatch/complete` sends it.
    ///   - matchingNumber: the number `dispatch/complete` sends, or `nil`.
    public static func decision(_ transaction: [UInt8], decision: String, matchingNumber: String?) -> [UInt8] {
        var input = Array("UMFA approval decision v1".utf8)
        input.append(0)
        input += transaction
        input.append(0)
        input += Array(decision.utf8)
        input.append(0)
        input += Array((matchingNumber ?? "").utf8)
        return Array(SHA256.hash(data: input))
    }
}

/// What an app link carries (docs/contract.md §7), base64url JSON in its `dispatchTokenResponse`
/// parameter: one type for the server that writes it and the SDK that reads it.
public struct AppLinkPayload: Codable, Sendable, Equatable {
    /// Always 1.
    public var version: Int
    /// The UMFA server's public URL.
    public var server: String
    /// The application.
    public var applicationID: String
    /// `registration` or `authentication`.
    public var operation: String
    /// The single-use dispatch token (`umfa_dt_…`).
    public var token: String

    /// Creates a payload of version 1.
    public init(server: String, applicationID: String, operation: String, token: String) {
        self.version = 1
        self.server = server
        self.applicationID = applicationID
        self.operation = operation
        self.token = token
    }

    enum CodingKeys: String, CodingKey {
        case version, server, operation, token
        case applicationID = "application_id"
    }
}
