import Foundation
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthnModel
import UMFAWebAuthnTypes

/// The device side of the ceremonies: the key store, the user's verification, the
/// authenticator's answer and how its errors read to an app.
extension UMFAClient {
    struct Device: Sendable {
        let store: DirectoryCredentialStore
        /// The software authenticator over ``store``: PIN changes and key files are its.
        let client: WebAuthnClient
        /// What makes and uses passkeys: ``client``, or the authenticator the app gave.
        let authenticator: any Authenticator
        let enrollments: DeviceEnrollments

        /// Whether passkeys live in ``store`` (the software authenticator).
        var isSoftware: Bool { authenticator is WebAuthnClient }

        /// `create()` on the authenticator, its refusal as the SDK reports it.
        func create(_ options: CreationOptionsJSON, context: AuthenticatorContext) async throws(ZSMError)
            -> RegistrationResponseJSON
        {
            do {
                return try await authenticator.create(options, context: context)
            } catch {
                throw UMFAClient.map(error, creating: true)
            }
        }

        /// `get()` on the authenticator, its refusal as the SDK reports it.
        func get(_ options: RequestOptionsJSON, context: AuthenticatorContext) async throws(ZSMError)
            -> AuthenticationResponseJSON
        {
            do {
                return try await authenticator.get(options, context: context)
            } catch {
                throw UMFAClient.map(error, creating: false)
            }
        }

        /// Whether the key of `credentialId` is here; a damaged key file still counts.
        func holdsKey(credentialId: String) -> Bool {
            guard let id = Base64URL.decode(credentialId) else { return false }
            do {
                return try store.credential(id: id) != nil
            } catch {
                return true
            }
        }
    }

    /// The device's key store, opened on first use and then shared, so every operation of
    /// this client counts signatures and wrong PINs under the same locks.
    func device() throws(ZSMError) -> Device {
        try openedDevice.withLock { opened throws(ZSMError) -> Device in
            if let opened { return opened }
            let store: DirectoryCredentialStore
            let deviceKey: any DeviceKeyProvider
            do throws(AuthenticatorError) {
                store = try DirectoryCredentialStore(directory: config.storageLocation)
                if let provider = config.deviceKeyProvider {
                    deviceKey = provider
                } else {
                    deviceKey = try DeviceKeyFile(directory: config.storageLocation)
                }
            } catch {
                throw ZSMError(.keyStoreDamaged, error.message)
            }
            let software = WebAuthnClient(
                origin: config.effectiveOrigin,
                authenticator: SoftwareAuthenticator(
                    store: store, deviceKeyProvider: deviceKey, scryptRounds: config.scryptRounds))
            let device = Device(
                store: store, client: software, authenticator: givenAuthenticator ?? software,
                enrollments: DeviceEnrollments(directory: config.storageLocation))
            opened = device
            return device
        }
    }

    /// An assertion with this device's passkey for `userId`, finished at the relying party:
    /// the sign-in of ``authenticate(userId:)`` and of ``answerApproval(userId:)``.
    func signIn(userId: String) async throws(ZSMError) -> (CeremonyOutcome, DeviceEnrollments.Entry) {
        try config.validate()
        let device = try device()
        guard let entry = try device.enrollments.entry(applicationId: config.applicationId, userId: userId) else {
            throw ZSMError(.notEnrolled, "this device holds no passkey for \(userId); enroll first")
        }
        let relyingParty = relyingParty
        let outcome = try await assertAndFinish(userId: userId, entry: entry, device: device) {
            credential async throws(ZSMError) in
            try await relyingParty.finishAuthentication(userId: userId, credential: credential)
        }
        return (outcome, entry)
    }

    /// Gets options, verifies the user, then signs and finishes inside the gate.
    func assertAndFinish(
        userId: String, entry: DeviceEnrollments.Entry, device: Device,
        finish: @escaping @Sendable (AuthenticationResponseJSON) async throws(ZSMError) -> CeremonyOutcome
    ) async throws(ZSMError) -> CeremonyOutcome {
        try await checkBiometricBinding(of: entry, device: device)
        var options = try await relyingParty.beginAuthentication(userId: userId).options
        try checkRelyingPartyID(options.rpId)
        // Only this user's passkey may answer, even if the device holds others for the RP.
        if let id = Base64URL.decode(entry.credentialId) {
            options.allowCredentials = [CredentialDescriptor(id: Base64URLBytes(id))]
            // prf.evalByCredential may name only allowed credentials (WebAuthn L3 §10.1.4).
            if case .object(var prf)? = options.extensions?["prf"],
                case .object(let byCredential)? = prf["evalByCredential"]
            {
                prf["evalByCredential"] = .object(byCredential.filter { Base64URL.decode($0.key) == id })
                options.extensions?["prf"] = .object(prf)
            }
        }
        let verified = try await verifyUser(userId: userId, creating: false, entry: entry)
        let request = options
        let context = context(verified, keyName: nil)
        return try await gate.run(for: entry.credentialId) { () async throws(ZSMError) -> CeremonyOutcome in
            try await finish(try await device.get(request, context: context))
        }
    }

    /// Refuses, as a configuration error, an RP ID the configured origin may not use; the
    /// authenticator would only say "not allowed".
    func checkRelyingPartyID(_ rpID: String?) throws(ZSMError) {
        guard RelyingPartyIDCheck.effectiveRPID(requested: rpID, origin: config.effectiveOrigin) == nil else { return }
        throw ZSMError(
            .invalidConfiguration,
            "the server's RP ID \"\(rpID ?? "")\" is not valid for the origin \(config.effectiveOrigin); "
                + "set ZSMConfig.origin to one of the application's origins")
    }

    /// Gets the user's PIN, password or platform confirmation, as configured; for the passkey
    /// of `entry`, biometrics fall back to the device passcode only if it was enrolled so.
    func verifyUser(userId: String, creating: Bool, entry: DeviceEnrollments.Entry? = nil) async throws(ZSMError)
        -> VerifiedUser
    {
        let purpose: ZSMConfig.SecretPurpose = creating ? .create(userId: userId) : .enter(userId: userId)
        let reason = creating ? "Create a passkey" : "Sign in"
        switch config.userVerification {
        case .none:
            return VerifiedUser(verification: .none, label: "none")
        case .pin(let provider):
            guard let pin = await provider(purpose), !pin.isEmpty else {
                throw ZSMError(.cancelled, "no PIN was given")
            }
            return VerifiedUser(verification: .secret(.pin, pin), label: "pin")
        case .password(let provider):
            guard let password = await provider(purpose), !password.isEmpty else {
                throw ZSMError(.cancelled, "no password was given")
            }
            return VerifiedUser(verification: .secret(.password, password), label: "password")
        case .platform(let verifier):
            try await Self.confirm(with: verifier, reason: reason)
            return VerifiedUser(verification: .confirmedByPlatform(verifier.method), label: verifier.method.rawValue)
        case .biometric(let verifier, let fallback, let invalidateOnNewOsBiometrics):
            let fallbackAllowed = creating || entry?.devicePasscodeFallback ?? true
            return try await verifyBiometrically(
                with: verifier, fallback: fallbackAllowed ? fallback : nil,
                binding: creating && invalidateOnNewOsBiometrics, reason: reason)
        }
    }

    /// The authenticator's context for a ceremony: the user's verification and this client's consent.
    func context(_ verified: VerifiedUser, keyName: String?) -> AuthenticatorContext {
        AuthenticatorContext(userVerification: verified.verification, consent: consent, keyName: keyName)
    }

    /// An authenticator's refusal as the SDK reports it: a refused or cancelled creation is
    /// `cancelled`, an excluded credential `alreadyEnrolled`, a missing passkey `notEnrolled`;
    /// the software authenticator's own reasons (wrong PIN, lockout, damage) keep their codes.
    static func map(_ error: PublicKeyCredentialError, creating: Bool) -> ZSMError {
        if let reason = error.authenticatorError {
            switch reason.code {
            case .userVerificationFailed: return ZSMError(.userVerificationFailed, reason.message)
            case .weakSecret: return ZSMError(.userVerificationFailed, reason.message, recovery: .retry)
            case .lockedOut: return ZSMError(.lockedOut, reason.message)
            case .invalidData, .storageFailure: return ZSMError(.keyStoreDamaged, reason.message)
            case .notAllowed where !creating:
                return ZSMError(.notEnrolled, "the passkey is no longer on this device; enroll again")
            case .notAllowed, .notSupported:
                return ZSMError(.serverError, "the authenticator cannot do what the server asks: \(reason.message)")
            case .invalidState: break
            }
        }
        switch error.code {
        case .invalidState: return ZSMError(.alreadyEnrolled, "this device already holds a passkey for this user")
        case .notAllowed, .abort: return ZSMError(.cancelled, error.message)
        case .notSupported:
            return ZSMError(.serverError, "the authenticator cannot do what the server asks: \(error.message)")
        case .security: return ZSMError(.invalidConfiguration, error.message)
        case .unknown: return ZSMError(.keyStoreDamaged, error.message, recovery: .retry)
        }
    }
}
