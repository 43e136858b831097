import Foundation
import UMFAAuthenticator

/// The platform's biometric check (Face ID, Touch ID, a fingerprint sensor), which the app
/// supplies: UMFA has none of its own.
///
/// `PlatformUserVerifier.verifyUser(reason:)` answers `true` when the user verified and
/// `false` when the biometric did not match (``ZSMError/Code/userVerificationFailed``, or the
/// device-passcode fallback). Throw `CancellationError` or a ``ZSMError`` `cancelled` when the
/// user dismissed the prompt, a ``ZSMError`` `lockedOut` when the platform locked biometrics.
public protocol BiometricUserVerifier: PlatformUserVerifier {
    /// The biometrics enrolled in the operating system now, as an opaque value that changes
    /// whenever one is added or removed (`LAContext.evaluatedPolicyDomainState` on iOS);
    /// `nil` when the device has none enrolled, which makes biometric verification unavailable.
    func currentBiometricSet() async -> Data?
}

extension BiometricUserVerifier {
    /// `PlatformVerificationMethod.biometric`.
    public var method: PlatformVerificationMethod { .biometric }
}

/// The platform's device-passcode check, which the app supplies; it answers and throws as a
/// ``BiometricUserVerifier`` does.
public protocol DevicePasscodeUserVerifier: PlatformUserVerifier {}

extension DevicePasscodeUserVerifier {
    /// `PlatformVerificationMethod.devicePasscode`.
    public var method: PlatformVerificationMethod { .devicePasscode }
}
