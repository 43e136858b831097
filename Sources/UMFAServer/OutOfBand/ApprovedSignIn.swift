import Foundation
import UMFAJOSE
import UMFAStorage

/// Who approved an approval that succeeded, and how, as the login token it ended with says: the
/// sign-in an OAuth flow (the API-driven flow, CIBA) continues with.
struct ApprovedSignIn {
    let userID: String
    let credentialID: [UInt8]
    /// The token's `amr`.
    let amr: [String]
    /// The level the approval reached (the token's `acr`).
    let level: AuthenticationLevel
    /// When the passkey was used (the token's `iat`), seconds since 1970.
    let authTime: Int

    private struct Claims: Decodable {
        var amr: [String]?
        var acr: String?
        var iat: Int?
    }

    /// The sign-in of `transaction`, which succeeded; its login token was sealed with `sealed`.
    init(_ transaction: OutOfBandTransactionRecord, sealed: SealedSecrets) throws {
        guard let userID = transaction.userID, let credentialID = transaction.credentialID,
            let sealedToken = transaction.sealedToken
        else { throw ServiceError(.internalFailure, "An approval succeeded without a user, passkey or login token") }
        let token = try sealed.open(sealedToken, for: .transactionToken)
        guard let parts = try? CompactJWSParts(token, canonical: false),
            let claims = try? JSONDecoder().decode(Claims.self, from: Data(parts.payload))
        else { throw ServiceError(.internalFailure, "An approval's login token does not decode") }
        self.userID = userID
        self.credentialID = credentialID
        amr = claims.amr ?? []
        level = AuthenticationLevel(acr: claims.acr) ?? .presence
        authTime = claims.iat ?? Int(transaction.updatedAt.timeIntervalSince1970)
    }
}
