import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// What an account being created becomes once its passkey verifies (docs/contract.md §5, §6): until
/// then it lives only in its interaction, beside the challenge of its creation options, so
/// options alone store no user.
extension Interaction.PendingAccount {
    /// The name the passkey manager shows: the given and family names, else the email address.
    var displayName: String {
        let name = [givenName, familyName].compactMap { $0 }.joined(separator: " ")
        return name.isEmpty ? email : name
    }

    /// The user handle the creation options carried, as bytes; `nil` when the interaction
    /// predates it (such an account creation starts again).
    var userHandleBytes: [UInt8]? { userHandle.flatMap(Base64URL.decode) }

    /// The user and profile to store with the first passkey.
    func newAccount(applicationID: UUID, userHandle: [UInt8], now: Date) -> RegistrationService.NewAccount {
        RegistrationService.NewAccount(
            user: UserRecord(
                applicationID: applicationID, userID: userID, userHandle: userHandle, displayName: displayName,
                createdAt: now),
            profile: UserProfileRecord(
                applicationID: applicationID, userID: userID, email: email, emailVerified: false,
                givenName: givenName, familyName: familyName, phoneNumber: phoneNumber, phoneNumberVerified: false,
                updatedAt: now))
    }
}
