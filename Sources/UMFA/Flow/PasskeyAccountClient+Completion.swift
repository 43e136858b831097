import Foundation

/// The completion-handler forms of ``PasskeyAccountClient``'s operations, as the rest of the
/// SDK has them. Completions run on an arbitrary thread.
extension PasskeyAccountClient {
    /// The completion of ``signUp(profile:friendlyName:scopes:completion:)`` and
    /// ``logIn(email:scopes:completion:)``.
    public typealias AccountCompletion = @Sendable (Result<AccountTokens, FlowError>) -> Void

    /// Creates an account with `profile` and a passkey on this device.
    public func signUp(
        profile: AccountProfile, friendlyName: String? = nil, scopes: [String]? = nil,
        completion: @escaping AccountCompletion
    ) {
        Task {
            do throws(FlowError) {
                completion(.success(try await signUp(profile: profile, friendlyName: friendlyName, scopes: scopes)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Signs in with this device's passkey for `email` (any discoverable one when `nil`).
    public func logIn(email: String?, scopes: [String]? = nil, completion: @escaping AccountCompletion) {
        Task {
            do throws(FlowError) {
                completion(.success(try await logIn(email: email, scopes: scopes)))
            } catch {
                completion(.failure(error))
            }
        }
    }

    /// Deletes the signed-in user's whole account on the server
    /// (``deleteAccount(accessToken:)``).
    public func deleteAccount(accessToken: String, completion: @escaping @Sendable (Result<Void, ZSMError>) -> Void) {
        Task {
            do throws(ZSMError) {
                try await deleteAccount(accessToken: accessToken)
                completion(.success(()))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
