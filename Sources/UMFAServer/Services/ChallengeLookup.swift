import Foundation
import UMFAStorage
import UMFAWebAuthn

/// Finds the challenge a response answers, through its client data, and consumes it exactly
/// once: the step registration and authentication share before §7.1 / §7.2 proper.
struct ChallengeLookup {
    let services: ServerServices
    let application: ApplicationRecord

    /// The challenge bytes and their stored record, consumed now; 400 when the client data
    /// cannot be read, 401 when the challenge is unknown, expired, used or of another ceremony.
    func consume(for clientDataJSON: Base64URLBytes, ceremony: CeremonyKind) async throws
        -> ([UInt8], ChallengeRecord)
    {
        let clientData: CollectedClientData
        do {
            clientData = try CollectedClientData(bytes: clientDataJSON.bytes)
        } catch {
            throw ServiceError.invalid("credential.response.clientDataJSON is not valid client data")
        }
        guard let bytes = Base64URL.decode(clientData.challenge),
            let challenge = try await services.store.consumeChallenge(
                bytes, applicationID: application.id, ceremony: ceremony),
            challenge.expiresAt > services.now()
        else {
            throw ServiceError.unauthenticated("The challenge is unknown, expired or already used")
        }
        return (bytes, challenge)
    }
}
