import Foundation

extension UMFAClient {
    /// Deletes `userId`'s whole account on the server, then the passkey on this device
    /// (docs/contract.md §8, "Deleting an account"): the user signs in with this device's passkey
    /// (PIN, password or platform confirmation, as for ``authenticate(userId:)``), and the fresh
    /// login token deletes the account, which ends every token and session of the user. Once the
    /// server confirmed, the device forgets the passkey, its enrollment record and the
    /// out-of-band device key.
    ///
    /// - Throws: ``ZSMError/Code/notEnrolled`` when this device holds no passkey for `userId`;
    ///   the sign-in's errors; the server's refusal (the account and the device's passkey stay).
    public func deleteAccount(userId: String) async throws(ZSMError) {
        let (outcome, entry) = try await signIn(userId: userId)
        guard let token = outcome.token, !token.isEmpty else {
            throw ZSMError(.serverError, "the server signed the user in but sent no token", traceId: outcome.traceId)
        }
        try await relyingParty.deleteAccount(userId: userId, loginToken: token)
        _ = forget(entry, device: try device())
    }

    /// ``deleteAccount(userId:)`` with a completion.
    public func deleteAccount(userId: String, completion: @escaping @Sendable (Result<Void, ZSMError>) -> Void) {
        Task {
            do throws(ZSMError) {
                try await deleteAccount(userId: userId)
                completion(.success(()))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
