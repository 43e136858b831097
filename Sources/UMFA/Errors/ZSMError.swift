/// Why an SDK operation failed, with what the app should do next.
///
/// Errors compare by ``code``. ``recovery`` says whether to retry, start over (for example
/// enroll again), or give up; ``traceId`` names the server request for support.
public struct ZSMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The server could not be reached, or did not answer in time.
        case networkError
        /// The server answered with an error (see ``ZSMError/httpStatus`` and ``ZSMError/traceId``).
        case serverError
        /// This device holds no passkey for the user.
        case notEnrolled
        /// The user has no means of the chosen user verification: the authenticator selector
        /// picked a PIN or password without a PIN or password enroller, biometrics or the
        /// device passcode without that verifier, or biometrics the device has none enrolled
        /// for (and no allowed device-passcode fallback). The name Nevis's registration
        /// reports to `onError` when a PIN is selected without a PIN enroller.
        case userNotEnrolled
        /// This device already holds a passkey for the user.
        case alreadyEnrolled
        /// The user cancelled (no PIN given, biometric prompt dismissed, no authenticator
        /// selected), or refused to create a passkey (ForgeRock's `WebAuthnError.cancelled`).
        case cancelled
        /// The user declined to create or reveal a passkey.
        case consentRefused
        /// The server refused the proof (signature, challenge, origin, policy).
        case verificationFailed
        /// The PIN or password was wrong, a new one is too short (a PIN needs at least 4
        /// digits, a password 8 characters), or user verification is required and was not done.
        case userVerificationFailed
        /// Too many wrong PINs or passwords in a row for this passkey, or a platform verifier
        /// that locked its method (too many failed biometric attempts): it is locked.
        case lockedOut
        /// The device's key store is damaged or was sealed with another device key.
        case keyStoreDamaged
        /// The passkey can never be used again and was deleted from the device: it was bound
        /// to the device's biometrics (`invalidateOnNewOsBiometrics`) and they changed since,
        /// as an iOS Secure Enclave key bound to `biometryCurrentSet`. Enroll again. Nevis:
        /// `FidoErrorCode.keyDisappearedPermanently`.
        case keyDisappearedPermanently
        /// The enrollment needs a grant from the application's backend.
        case enrollmentNotAllowed
        /// The configuration is unusable.
        case invalidConfiguration
    }

    /// What the app should do next: the SDK's one ``UMFA/Recovery``.
    public typealias Recovery = UMFA.Recovery

    /// The kind of failure.
    public let code: Code
    /// A human explanation, never containing a secret.
    public let message: String
    /// What to do next.
    public let recovery: Recovery
    /// The HTTP status, for server errors.
    public let httpStatus: Int?
    /// The server's trace id, when a request was made.
    public let traceId: String?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, recovery: Recovery? = nil, httpStatus: Int? = nil, traceId: String? = nil
    ) {
        self.code = code
        self.message = message
        self.recovery = recovery ?? Self.defaultRecovery(code)
        self.httpStatus = httpStatus
        self.traceId = traceId
    }

    static func defaultRecovery(_ code: Code) -> Recovery {
        switch code {
        case .networkError, .cancelled, .userVerificationFailed: return .retry
        case .notEnrolled, .lockedOut, .keyStoreDamaged, .verificationFailed, .enrollmentNotAllowed,
            .keyDisappearedPermanently, .userNotEnrolled:
            return .startOver
        case .serverError, .alreadyEnrolled, .consentRefused, .invalidConfiguration: return .giveUp
        }
    }

    /// The code, message and trace id.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let traceId { text += " (trace_id \(traceId))" }
        return text
    }

    /// Compares by code only.
    public static func == (lhs: ZSMError, rhs: ZSMError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
