import UMFAAuthenticator

/// What a PIN or password enroller is told when it asks the user for a new secret.
public struct SecretEnrollmentContext: Sendable, Hashable {
    /// The user the passkey is for.
    public let userId: String
    /// The fewest characters (digits, for a PIN) the secret may have.
    public let minimumLength: Int
    /// Why the previous answer was refused (too short, not digits only); `nil` at the first
    /// question. The secret itself is never part of it.
    public let lastRecoverableError: ZSMError?
}

/// Asks the user to choose the PIN that protects a new passkey.
public protocol PINEnroller: Sendable {
    /// The new PIN, at least ``SecretEnrollmentContext/minimumLength`` digits; `nil` cancels.
    func enrollPIN(_ context: SecretEnrollmentContext) async -> String?
}

/// Asks the user to choose the password that protects a new passkey.
public protocol PasswordEnroller: Sendable {
    /// The new password, at least ``SecretEnrollmentContext/minimumLength`` characters; `nil` cancels.
    func enrollPassword(_ context: SecretEnrollmentContext) async -> String?
}

/// A secret provider for an enrollment that asks again, naming the rule broken, when an
/// answer breaks ``SecretPolicy``; after ``maximumQuestions`` the last answer goes to the
/// authenticator, which refuses it (`userVerificationFailed`).
enum SecretEnrollment {
    static let maximumQuestions = 3

    static func provider(
        _ kind: SecretKind, ask: @escaping @Sendable (SecretEnrollmentContext) async -> String?
    ) -> ZSMConfig.SecretProvider {
        { purpose in
            // A registration only creates; it never asks for an existing secret.
            guard case .create(let userId) = purpose else { return nil }
            let minimum = kind == .pin ? SecretPolicy.minimumPINLength : SecretPolicy.minimumPasswordLength
            var refusal: ZSMError?
            var answer: String?
            for _ in 0..<maximumQuestions {
                answer = await ask(
                    SecretEnrollmentContext(userId: userId, minimumLength: minimum, lastRecoverableError: refusal))
                guard let secret = answer else { return nil }
                do throws(AuthenticatorError) {
                    try SecretPolicy.check(kind, secret)
                    return secret
                } catch {
                    refusal = ZSMError(.userVerificationFailed, error.message, recovery: .retry)
                }
            }
            return answer
        }
    }
}

/// A ``PINEnroller`` made of a closure.
struct PINEnrollerClosure: PINEnroller {
    let enroll: @Sendable (SecretEnrollmentContext) async -> String?

    func enrollPIN(_ context: SecretEnrollmentContext) async -> String? { await enroll(context) }
}

/// A ``PasswordEnroller`` made of a closure.
struct PasswordEnrollerClosure: PasswordEnroller {
    let enroll: @Sendable (SecretEnrollmentContext) async -> String?

    func enrollPassword(_ context: SecretEnrollmentContext) async -> String? { await enroll(context) }
}
