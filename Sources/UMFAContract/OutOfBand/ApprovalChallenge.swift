import Crypto

/// The challenge of an approval (docs/contract.md §7), which server and phone both compute:
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
