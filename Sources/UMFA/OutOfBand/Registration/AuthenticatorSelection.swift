/// How a new passkey is protected on the device; an out-of-band registration's
/// ``OutOfBandRegistration/authenticatorSelector(_:)`` chooses one.
public enum AuthenticatorKind: String, Sendable, Hashable, CaseIterable {
    /// A PIN the user chooses now (``PINEnroller``) and enters at each use.
    case pin
    /// A password the user chooses now (``PasswordEnroller``) and enters at each use.
    case password
    /// The platform's biometric check (``BiometricUserVerifier``).
    case biometric
    /// The platform's device passcode (``DevicePasscodeUserVerifier``).
    case devicePasscode
}

/// What an authenticator selector chooses from.
public struct AuthenticatorSelectionContext: Sendable, Hashable {
    /// The authenticators the app offers: those it gave an enroller or a verifier for, in the
    /// order of `AuthenticatorKind.allCases`.
    public let offered: [AuthenticatorKind]
    /// The application the passkey is for.
    public let applicationId: String
}

/// Chooses how the new passkey is protected; `nil` cancels the registration
/// (``ZSMError/Code/cancelled``). Choosing a kind the context does not offer fails with
/// ``ZSMError/Code/userNotEnrolled``.
public typealias AuthenticatorSelector = @Sendable (AuthenticatorSelectionContext) async -> AuthenticatorKind?
