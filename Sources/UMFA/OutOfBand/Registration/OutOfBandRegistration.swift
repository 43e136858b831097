import Foundation
import Synchronization
import UMFAAuthenticator
import UMFAContract

/// Registers a passkey on this device for an enrollment the application's backend started
/// out of band (docs/contract.md §7 and §9): built from the backend's enroll response or the app link
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
/// The builder works chained, as above, or statement by statement: every method changes this
/// registration and returns it (`reg.pinEnroller(x); reg.execute()` keeps the enroller).
/// ``run()`` (or ``execute()`` with ``onSuccess(_:)`` and ``onError(_:)``) checks that an
/// enroller or verifier is configured, redeems the link once, asks the user as the selected
/// authenticator needs, creates the passkey with ``UMFAClient`` and completes the enrollment.
public final class OutOfBandRegistration: Sendable {
    /// Everything the builder methods set.
    struct Settings: Sendable {
        var config: ZSMConfig
        var enrollResponse: Result<OutOfBandEnrollResponse, ZSMError>?
        var appLink: Result<UMFAAppLink, ZSMError>?
        var selector: AuthenticatorSelector?
        var pinEnroller: (any PINEnroller)?
        var passwordEnroller: (any PasswordEnroller)?
        var biometricVerifier: (any BiometricUserVerifier)?
        var devicePasscodeVerifier: (any DevicePasscodeUserVerifier)?
        var deviceInformation: DeviceInformation?
        var passcodeFallbackAllowed = false
        /// Nevis's documented default: invalidated when the OS biometrics change.
        var bindsToBiometricSet = true
        var authenticator: (any Authenticator)?
        var consent: any AuthenticatorConsent = AlwaysConsent()
        var successHandler: (@Sendable (OutOfBandRegistrationResult) -> Void)?
        var errorHandler: (@Sendable (ZSMError) -> Void)?
    }

    private let state: Mutex<Settings>

    /// The settings as they are now.
    var settings: Settings { state.withLock { $0 } }

    /// Starts a registration that keeps the passkey as `config` says (storage location,
    /// origin, device key, timeouts, headers); the server and application are the link's.
    public init(config: ZSMConfig) {
        state = Mutex(Settings(config: config))
    }

    /// Registers for the enrollment in `response`, the answer of `POST /api/umfa/users/enroll`
    /// (its `enrollment.appLinkUri`). Give this or an app link, not both.
    @discardableResult
    public func enrollResponse(_ response: OutOfBandEnrollResponse) -> Self {
        with { $0.enrollResponse = .success(response) }
    }

    /// Registers for the enrollment in `json`, the body of the `POST /api/umfa/users/enroll`
    /// answer; ``run()`` reports a body that is not one as `invalidConfiguration`.
    @discardableResult
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
    @discardableResult
    public func appLink(_ link: UMFAAppLink) -> Self {
        with { $0.appLink = .success(link) }
    }

    /// Registers for the enrollment the app link `uri` names; ``run()`` reports a text that is
    /// not a UMFA app link as `invalidConfiguration`.
    @discardableResult
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
    /// (APNs, FCM) that later approvals reach it with. As Nevis documents it, a device keeps
    /// the information of its first registration that gives one (per application): a later
    /// registration's is ignored, and ``UMFAClient/updateDeviceInformation(_:)`` changes it.
    /// Without any, ``ZSMConfig/deviceName`` and ``ZSMConfig/pushToken`` are sent.
    @discardableResult
    public func deviceInformation(_ information: DeviceInformation) -> Self {
        with { $0.deviceInformation = information }
    }

    /// ``deviceInformation(_:)`` with a name and an optional push token.
    @discardableResult
    public func deviceInformation(name: String, pushToken: String? = nil) -> Self {
        deviceInformation(DeviceInformation(name: name, pushToken: pushToken))
    }

    /// Chooses how the passkey is protected, among the authenticators the app offers; required.
    @discardableResult
    public func authenticatorSelector(_ selector: @escaping AuthenticatorSelector) -> Self {
        with { $0.selector = selector }
    }

    /// Asks for the new PIN when the selector chooses ``AuthenticatorKind/pin``.
    @discardableResult
    public func pinEnroller(_ enroller: any PINEnroller) -> Self {
        with { $0.pinEnroller = enroller }
    }

    /// Asks for the new PIN with a closure; `nil` cancels.
    @discardableResult
    public func pinEnroller(_ enroll: @escaping @Sendable (SecretEnrollmentContext) async -> String?) -> Self {
        pinEnroller(PINEnrollerClosure(enroll: enroll))
    }

    /// Asks for the new password when the selector chooses ``AuthenticatorKind/password``.
    @discardableResult
    public func passwordEnroller(_ enroller: any PasswordEnroller) -> Self {
        with { $0.passwordEnroller = enroller }
    }

    /// Asks for the new password with a closure; `nil` cancels.
    @discardableResult
    public func passwordEnroller(_ enroll: @escaping @Sendable (SecretEnrollmentContext) async -> String?) -> Self {
        passwordEnroller(PasswordEnrollerClosure(enroll: enroll))
    }

    /// Verifies the user when the selector chooses ``AuthenticatorKind/biometric``.
    @discardableResult
    public func biometricUserVerifier(_ verifier: any BiometricUserVerifier) -> Self {
        with { $0.biometricVerifier = verifier }
    }

    /// Verifies the user when the selector chooses ``AuthenticatorKind/devicePasscode``, and
    /// for a biometric registration when ``allowDevicePasscodeAsFallback(_:)`` allows it.
    @discardableResult
    public func devicePasscodeUserVerifier(_ verifier: any DevicePasscodeUserVerifier) -> Self {
        with { $0.devicePasscodeVerifier = verifier }
    }

    /// Whether a biometric registration whose biometrics are unavailable or fail (not when
    /// the user cancels) may verify with the device passcode instead; the passkey is then
    /// protected by the device passcode. `false` by default. The choice is kept with the
    /// passkey: its later sign-ins fall back to the passcode only when it was `true`. `true`
    /// needs a ``devicePasscodeUserVerifier(_:)``: without one, ``run()`` fails with
    /// `invalidConfiguration` before the link is used.
    @discardableResult
    public func allowDevicePasscodeAsFallback(_ allowed: Bool) -> Self {
        with { $0.passcodeFallbackAllowed = allowed }
    }

    /// Whether a biometric passkey stops working once the device's biometrics change (a
    /// finger or face added or removed): it is then deleted at its next use, which fails with
    /// ``ZSMError/Code/keyDisappearedPermanently``. `true` by default, as Nevis documents it:
    /// more secure, at the cost of enrolling again after a new finger or face.
    @discardableResult
    public func invalidateOnNewOsBiometrics(_ invalidate: Bool) -> Self {
        with { $0.bindsToBiometricSet = invalidate }
    }

    /// Makes and uses the passkey with `authenticator` (the platform's, through an adapter)
    /// instead of UMFA's software authenticator.
    public func authenticator(_ authenticator: any Authenticator) -> Self {
        with { $0.authenticator = authenticator }
    }

    /// Asks `consent` before the passkey is created or an existing one reported; a refusal is
    /// ``ZSMError/Code/cancelled``. `AlwaysConsent` by default.
    public func authenticatorConsent(_ consent: any AuthenticatorConsent) -> Self {
        with { $0.consent = consent }
    }

    /// Called with the result when ``execute()`` succeeds.
    @discardableResult
    public func onSuccess(_ handler: @escaping @Sendable (OutOfBandRegistrationResult) -> Void) -> Self {
        with { $0.successHandler = handler }
    }

    /// Called with the error when ``execute()`` fails.
    @discardableResult
    public func onError(_ handler: @escaping @Sendable (ZSMError) -> Void) -> Self {
        with { $0.errorHandler = handler }
    }

    private func with(_ change: (inout Settings) -> Void) -> Self {
        state.withLock { change(&$0) }
        return self
    }
}
