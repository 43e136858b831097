import Foundation
import UMFATokens

/// The secrets services store sealed with the master key, one purpose each: what a service
/// holds instead of the master key itself, so no service can open what another sealed (a
/// signing key, sealed by ``TokenService`` under a purpose of its own, is out of every
/// service's reach). Each purpose is its own AEAD context (``MasterKey``), so a value sealed
/// for one cannot be opened as another.
struct SealedSecrets: Sendable {
    /// What a sealed value is for.
    enum Purpose: Sendable {
        /// A client's secret for `client_secret_jwt` (RFC 7523 §2.2), bound to its client id.
        case clientSecret(clientID: String)
        /// An application's webhook signing secret.
        case webhookSecret
        /// The login token of an out-of-band transaction that succeeded, kept for its status poll.
        case transactionToken
        /// An out-of-band dispatch token, handed to the device that fetches pending approvals.
        case dispatchToken
        /// A message in the mail outbox (it may hold a code or a link).
        case mailMessage
        /// The user and passkey behind a pairwise client's access token (``AccessTokens``).
        case subjectReference
        /// Where a CIBA request in ping mode is notified, with its bearer token (``CIBAPing``).
        case cibaPing

        var context: String {
            switch self {
            case .clientSecret(let clientID): "client-secret:" + clientID
            case .webhookSecret: "umfa-webhook-secret"
            case .transactionToken: "umfa-oob-token"
            case .dispatchToken: "umfa-oob-dispatch-token"
            case .mailMessage: "umfa-mail-message"
            case .subjectReference: "umfa-subject-reference"
            case .cibaPing: "umfa-ciba-ping"
            }
        }
    }

    private let masterKey: MasterKey

    init(masterKey: MasterKey) { self.masterKey = masterKey }

    /// `text` sealed for `purpose`.
    func seal(_ text: String, for purpose: Purpose) throws -> [UInt8] {
        try masterKey.seal(Array(text.utf8), context: purpose.context)
    }

    /// The text sealed for `purpose`; throws when it was sealed for another or altered.
    func open(_ sealed: [UInt8], for purpose: Purpose) throws -> String {
        String(decoding: try openBytes(sealed, for: purpose), as: UTF8.self)
    }

    /// The bytes sealed for `purpose` (an HMAC key, used as bytes).
    func openBytes(_ sealed: [UInt8], for purpose: Purpose) throws -> [UInt8] {
        try masterKey.open(sealed, context: purpose.context)
    }
}
