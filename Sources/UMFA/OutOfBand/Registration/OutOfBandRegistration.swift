import Foundation
import UMFAContract

/// Registers a passkey on this device for an enrollment the application's backend started
/// out of band (DESIGN.md §7 and §9): built from the backend's enroll response or the app link
/// its QR code carries, in the style of the Nevis SDK's `OutOfBandRegistration`.
///
/// ```swift
/// let result = try await OutOfBandRegistration(config: config)
///     .appLink(uri: scannedText)
///     .deviceInformation(name: "Alice's phone", pushToken: apnsToken)
///     .authenticatorSelector { context in context.offered.contains(.biometric) ? .biometric : .pin }
///     .pinEnroller { context in await askForNewPIN(context) }
///     .biometricUserVerifier(FaceIDVerifier())
///     .invalidateOnNewOsBiometrics(true)
///     .run()
/// ```
///
/// Each method returns a changed copy. ``run()`` (or ``execute()`` with ``onSuccess(_:)`` and
/// ``onError(_:)``) redeems the link once, asks the user as the selected authenticator needs,
/// creates the passkey with ``UMFAClient`` and completes the enrollment.
public struct OutOfBandRegistration: Sendable {
    var config: ZSMConfig
    var enrollResponse: Result<OutOfBandEnrollResponse, ZSMError>?
    var appLink: Result<UMFAAppLink, ZSMError>?
    var selector: AuthenticatorSelector?
    var pinEnroller: (any PINEnroller)?
    var passwordEnroller: (any PasswordEnroller)?
    var biometricVerifier: (any BiometricUserVerifier)?
    var devicePasscodeVerifier: (any DevicePasscodeUserVerifier)?
    var passcodeFallbackAllowed = false
    var bindsToBiometricSet = false
    var successHandler: (@Sendable (OutOfBandRegistrationResult) -> Void)?
    var errorHandler: (@Sendable (ZSMError) -> Void)?

    /// Starts a registration that keeps the passkey as `config` says (storage location,
    /// origin, device key, timeouts, headers); the server and application are the link's.
    public init(config: ZSMConfig) {
        self.config = config
    }

    /// Registers for the enrollment in `response`, the answer of `POST /api/umfa/users/enroll`
    /// (its `enrollment.appLinkUri`). Give this or an app link, not both.
    public func enrollResponse(_ response: OutOfBandEnrollResponse) -> Self {
        with { $0.enrollResponse = .success(response) }
    }

    /// Registers for the enrollment in `json`, the body of the `POST /api/umfa/users/enroll`
    /// answer; ``run()`` reports a body that is not one as `invalidConfiguration`.
    public func enrollResponse(json: Data) -> Self {
        with { registration in
            do {
                registration.enrollResponse = .success(
                    try JSONDecoder().decode(OutOfBandEnrollResponse.self, from: json))
            } catch {
                registration.enrollResponse = .failure(
                    ZSMError(
                        .invalidConfiguration, "the enroll response is not the answer of POST /api/umfa/users/enroll"))
            }
        }
    }

    /// Registers for the enrollment `link` names. Give this or an enroll response, not both.
    public func appLink(_ link: UMFAAppLink) -> Self {
        with { $0.appLink = .success(link) }
    }

    /// Registers for the enrollment the app link `uri` names; ``run()`` reports a text that is
    /// not a UMFA app link as `invalidConfiguration`.
    public func appLink(uri: String) -> Self {
        with { registration in
            do throws(ZSMError) {
                registration.appLink = .success(try UMFAAppLink(uri: uri))
            } catch {
                registration.appLink = .failure(error)
            }
        }
    }

    /// Names this device in the user's credential lists and gives the push-service token
    /// (APNs, FCM) that later approvals reach it with (``ZSMConfig/deviceName``,
    /// ``ZSMConfig/pushToken``).
    public func deviceInformation(name: String, pushToken: String? = nil) -> Self {
        with {
            $0.config.deviceName = name
            $0.config.pushToken = pushToken
        }
    }

    /// Chooses how the passkey is protected, among the authenticators the app offers; required.
    public func authenticatorSelector(_ selector: @escaping AuthenticatorSelector) -> Self {
        with { $0.selector = selector }
    }

    /// Asks for the new PIN when the selector chooses ``AuthenticatorKind/pin``.
    public func pinEnroller(_ enroller: any PINEnroller) -> Self {
        with { $0.pinEnroller = enroller }
    }

    /// Asks for the new PIN with a closure; `nil` cancels.
    public func pinEnroller(_ enroll: @escaping @Sendable (SecretEnrollmentContext) async -> String?) -> Self {
        pinEnroller(PINEnrollerClosure(enroll: enroll))
    }

    /// Asks for the new password when the selector chooses ``AuthenticatorKind/password``.
    public func passwordEnroller(_ enroller: any PasswordEnroller) -> Self {
        with { $0.passwordEnroller = enroller }
    }

    /// Asks for the new password with a closure; `nil` cancels.
    public func passwordEnroller(_ enroll: @escaping @Sendable (SecretEnrollmentContext) async -> String?) -> Self {
        passwordEnroller(PasswordEnrollerClosure(enroll: enroll))
    }

    /// Verifies the user when the selector chooses ``AuthenticatorKind/biometric``.
    public func biometricUserVerifier(_ verifier: any BiometricUserVerifier) -> Self {
        with { $0.biometricVerifier = verifier }
    }

    /// Verifies the user when the selector chooses ``AuthenticatorKind/devicePasscode``, and
    /// for a biometric registration when ``allowDevicePasscodeAsFallback(_:)`` allows it.
    public func devicePasscodeUserVerifier(_ verifier: any DevicePasscodeUserVerifier) -> Self {
        with { $0.devicePasscodeVerifier = verifier }
    }

    /// Whether a biometric registration whose biometrics are unavailable or fail (not when
    /// the user cancels) may verify with the device passcode instead; the passkey is then
    /// protected by the device passcode. `false` by default.
    public func allowDevicePasscodeAsFallback(_ allowed: Bool) -> Self {
        with { $0.passcodeFallbackAllowed = allowed }
    }

    /// Whether a biometric passkey stops working once the device's biometrics change (a
    /// finger or face added or removed): it is then deleted at its next use, which fails with
    /// ``ZSMError/Code/keyDisappearedPermanently``. `false` by default.
    public func invalidateOnNewOsBiometrics(_ invalidate: Bool) -> Self {
        with { $0.bindsToBiometricSet = invalidate }
    }

    /// Called with the result when ``execute()`` succeeds.
    public func onSuccess(_ handler: @escaping @Sendable (OutOfBandRegistrationResult) -> Void) -> Self {
        with { $0.successHandler = handler }
    }

    /// Called with the error when ``execute()`` fails.
    public func onError(_ handler: @escaping @Sendable (ZSMError) -> Void) -> Self {
        with { $0.errorHandler = handler }
    }

    private func with(_ change: (inout Self) -> Void) -> Self {
        var copy = self
        change(&copy)
        return copy
    }
}
