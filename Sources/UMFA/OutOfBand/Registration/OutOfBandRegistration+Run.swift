import UMFAContract

/// What an ``OutOfBandRegistration`` returns.
public struct OutOfBandRegistrationResult: Sendable, Hashable {
    /// The passkey registered, as ``UMFAClient/enroll(userId:)`` reports it (no login token:
    /// the backend that started the enrollment gets it through its status token).
    public let enrollment: EnrollmentResult
    /// The out-of-band transaction.
    public let transactionId: String
    /// How the passkey is protected: the selected authenticator, or
    /// ``AuthenticatorKind/devicePasscode`` after the biometric registration fell back to it.
    public let authenticator: AuthenticatorKind
}

extension OutOfBandRegistration {
    /// Registers the passkey and returns the result; the ``onSuccess(_:)`` and ``onError(_:)``
    /// handlers are not called.
    /// - Throws: `invalidConfiguration` when not exactly one of an enroll response and an app
    ///   link was given, either is unreadable, the link is not a registration, no
    ///   authenticator selector was set, no enroller or verifier was, or
    ///   ``allowDevicePasscodeAsFallback(_:)`` is `true` without a
    ///   ``devicePasscodeUserVerifier(_:)`` (nothing is redeemed then); `cancelled` when the selector chose nothing or the user
    ///   cancelled a question; `userNotEnrolled` when the selected authenticator has no enroller
    ///   or verifier (or no biometrics are enrolled and no passcode fallback is allowed);
    ///   `userVerificationFailed`, `lockedOut`, `networkError`, `serverError`,
    ///   `verificationFailed` as ``UMFAClient/enroll(userId:)``.
    public func run() async throws(ZSMError) -> OutOfBandRegistrationResult {
        let settings = settings
        let link = try settings.resolvedLink()
        guard link.operation == "registration" else {
            throw ZSMError(.invalidConfiguration, "the app link is for \(link.operation), not a registration")
        }
        guard let selector = settings.selector else {
            throw ZSMError(.invalidConfiguration, "an out-of-band registration needs an authenticatorSelector")
        }
        // Nevis: at least one of the verifiers and enrollers is required; checked before the
        // single-use link is redeemed.
        let offered = settings.offered
        guard !offered.isEmpty else {
            throw ZSMError(
                .invalidConfiguration,
                "an out-of-band registration needs a pinEnroller, passwordEnroller, biometricUserVerifier "
                    + "or devicePasscodeUserVerifier")
        }
        guard !settings.passcodeFallbackAllowed || settings.devicePasscodeVerifier != nil else {
            throw ZSMError(
                .invalidConfiguration,
                "allowDevicePasscodeAsFallback(true) needs a devicePasscodeUserVerifier to fall back to")
        }
        let context = AuthenticatorSelectionContext(offered: offered, applicationId: link.applicationId)
        guard let chosen = await selector(context) else {
            throw ZSMError(.cancelled, "no authenticator was selected")
        }
        var config = settings.config
        config.hostURL = link.server
        config.applicationId = link.applicationId
        config.userVerification = try settings.userVerification(for: chosen)
        // Nevis: device information given in an earlier registration stays; this one's is ignored.
        let kept = DeviceInformationFile(directory: config.storageLocation)
        let known = try kept.information(applicationId: link.applicationId)
        if let used = known ?? settings.deviceInformation {
            config.deviceName = used.name
            config.pushToken = used.pushToken
        }

        let relyingParty = OutOfBandRelyingParty(link: link, config: config)
        let client = UMFAClient(
            config, relyingParty: relyingParty, consent: settings.consent, authenticator: settings.authenticator)
        let redeemed = try await relyingParty.redeem()
        guard let userId = redeemed.userID else {
            throw ZSMError(.serverError, "the enrollment names no user", traceId: redeemed.traceID)
        }
        if case .success(let response) = settings.enrollResponse, response.userId != userId {
            throw ZSMError(.invalidConfiguration, "the enroll response's link enrolls another user than it names")
        }
        let enrollment = try await client.enroll(userId: userId)
        if known == nil, let given = settings.deviceInformation {
            try kept.save(given, applicationId: link.applicationId)
        }
        return OutOfBandRegistrationResult(
            enrollment: enrollment, transactionId: redeemed.transactionID,
            authenticator: AuthenticatorKind(rawValue: enrollment.userVerification) ?? chosen)
    }

    /// Runs the registration in a new task and calls ``onSuccess(_:)`` or ``onError(_:)``;
    /// the task can be awaited or cancelled.
    @discardableResult
    public func execute() -> Task<Void, Never> {
        let registration = self
        return Task {
            do throws(ZSMError) {
                let result = try await registration.run()
                registration.settings.successHandler?(result)
            } catch {
                registration.settings.errorHandler?(error)
            }
        }
    }
}

extension OutOfBandRegistration.Settings {

    /// The authenticators the app gave an enroller or verifier for.
    var offered: [AuthenticatorKind] {
        AuthenticatorKind.allCases.filter { kind in
            switch kind {
            case .pin: return pinEnroller != nil
            case .password: return passwordEnroller != nil
            case .biometric: return biometricVerifier != nil
            case .devicePasscode: return devicePasscodeVerifier != nil
            }
        }
    }

    /// The app link: from the enroll response or given, exactly one of the two.
    func resolvedLink() throws(ZSMError) -> UMFAAppLink {
        switch (enrollResponse, appLink) {
        case (nil, nil):
            throw ZSMError(.invalidConfiguration, "give the enroll response or the app link of the enrollment")
        case (.some, .some):
            throw ZSMError(.invalidConfiguration, "give the enroll response or the app link, not both")
        case (.some(let response), nil):
            return try UMFAAppLink(uri: try response.get().enrollment.appLinkUri)
        case (nil, .some(let link)):
            return try link.get()
        }
    }

    /// The client's user verification for the selected authenticator.
    func userVerification(for kind: AuthenticatorKind) throws(ZSMError) -> ZSMConfig.UserVerificationChoice {
        switch kind {
        case .pin:
            guard let pinEnroller else { throw Self.missing("a PIN", "pinEnroller") }
            return .pin(SecretEnrollment.provider(.pin) { await pinEnroller.enrollPIN($0) })
        case .password:
            guard let passwordEnroller else { throw Self.missing("a password", "passwordEnroller") }
            return .password(SecretEnrollment.provider(.password) { await passwordEnroller.enrollPassword($0) })
        case .biometric:
            guard let biometricVerifier else { throw Self.missing("biometrics", "biometricUserVerifier") }
            return .biometric(
                biometricVerifier, devicePasscodeFallback: passcodeFallbackAllowed ? devicePasscodeVerifier : nil,
                invalidateOnNewOsBiometrics: bindsToBiometricSet)
        case .devicePasscode:
            guard let devicePasscodeVerifier else {
                throw Self.missing("the device passcode", "devicePasscodeUserVerifier")
            }
            return .platform(devicePasscodeVerifier)
        }
    }

    private static func missing(_ what: String, _ setter: String) -> ZSMError {
        ZSMError(.userNotEnrolled, "the authenticator selector chose \(what), but the registration has no \(setter)")
    }
}
