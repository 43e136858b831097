import Foundation
import UMFAAuthenticator
import UMFAWebAuthn

/// The UMFA client SDK: binds a user's account to a passkey on this device, proves later that
/// the same device and person are back, and hands the app a login token for its backend.
///
/// ```swift
/// let client = UMFAClient(ZSMConfig(hostURL: url, applicationId: appId))
/// let enrollment = try await client.enroll(userId: "alice")
/// let login = try await client.authenticate(userId: "alice")
/// sendToBackend(login.token)   // the backend calls POST /api/umfa/validate-token
/// ```
///
/// Every operation exists as `async throws(ZSMError)` and with a completion handler.
public final class UMFAClient: Sendable {
    /// The SDK's semantic version, the same as `umfa --version`.
    public static let versionString = UMFAVersion.string

    /// The configuration.
    public let config: ZSMConfig
    /// Where ceremonies are performed.
    public let relyingParty: any RelyingParty
    let consent: any AuthenticatorConsent

    /// Creates a client that speaks the UMFA HTTP API at `config.hostURL`.
    public convenience init(_ config: ZSMConfig) {
        self.init(config, relyingParty: UMFAHTTPRelyingParty(config: config))
    }

    /// Creates a client whose ceremonies go through `relyingParty`.
    public convenience init(_ config: ZSMConfig, relyingParty: any RelyingParty) {
        self.init(config, relyingParty: relyingParty, consent: AlwaysConsent())
    }

    /// Creates a client that asks `consent` before creating or reporting a passkey.
    public init(_ config: ZSMConfig, relyingParty: any RelyingParty, consent: any AuthenticatorConsent) {
        self.config = config
        self.relyingParty = relyingParty
        self.consent = consent
    }

    // MARK: - Operations

    /// Whether this device holds a passkey for `userId`; answered from the device alone.
    public func checkEnrollment(userId: String) async throws(ZSMError) -> EnrollmentStatus {
        try config.validate()
        let entry = try device().enrollments.entry(applicationId: config.applicationId, userId: userId)
        return EnrollmentStatus(
            userId: userId, enrolled: entry != nil, credentialId: entry?.credentialId, enrolledAt: entry?.enrolledAt)
    }

    /// Creates a passkey for `userId` on this device and registers it with the server.
    ///
    /// For applications with the `grant` policy, ``ZSMConfig/enrollmentTokenProvider`` supplies
    /// the enrollment token. With a PIN or password, the user chooses it now.
    public func enroll(userId: String) async throws(ZSMError) -> EnrollmentResult {
        try config.validate()
        let device = try device()
        var enrollmentToken: String?
        if let provider = config.enrollmentTokenProvider {
            do {
                enrollmentToken = try await provider(userId)
            } catch {
                throw ZSMError(.enrollmentNotAllowed, "the app could not get an enrollment token", recovery: .retry)
            }
        }
        let begun = try await relyingParty.beginRegistration(
            userId: userId, displayName: nil, enrollmentToken: enrollmentToken)
        let verification = try await verifyUser(userId: userId, creating: true)
        let response: RegistrationResponseJSON
        do {
            response = try device.client.create(begun.options, verification: verification)
        } catch {
            throw Self.map(error)
        }
        let outcome: CeremonyOutcome
        do {
            outcome = try await relyingParty.finishRegistration(
                userId: userId, credential: response, deviceName: config.deviceName)
        } catch {
            try? device.store.delete(id: response.rawId.bytes)
            throw error
        }
        let now = Date()
        try device.enrollments.record(
            DeviceEnrollments.Entry(
                applicationId: config.applicationId, userId: userId, credentialId: outcome.credentialId,
                rpId: begun.options.rp.id ?? config.hostURL.host ?? "", enrolledAt: now,
                userVerification: verificationLabel))
        return EnrollmentResult(
            userId: outcome.userId, credentialId: outcome.credentialId, token: outcome.token, enrolledAt: now,
            userVerification: verificationLabel, traceId: outcome.traceId)
    }

    /// Signs in `userId` with this device's passkey and returns a login token.
    public func authenticate(userId: String) async throws(ZSMError) -> AuthenticationResult {
        try config.validate()
        let device = try device()
        guard let entry = try device.enrollments.entry(applicationId: config.applicationId, userId: userId) else {
            throw ZSMError(.notEnrolled, "this device holds no passkey for \(userId); enroll first")
        }
        let outcome = try await assertAndFinish(userId: userId, entry: entry, device: device) {
            credential async throws(ZSMError) in
            try await self.relyingParty.finishAuthentication(userId: userId, credential: credential)
        }
        return AuthenticationResult(
            userId: outcome.userId, credentialId: outcome.credentialId, token: outcome.token ?? "",
            authenticatedAt: Date(), traceId: outcome.traceId)
    }

    /// Removes `userId`'s passkey: first on the server (proven by an assertion), then on the
    /// device. Returns `false`, keeping the device's key so the user can retry, when the
    /// server could not be reached or refused.
    public func unenroll(userId: String) async -> Bool {
        do {
            try config.validate()
            let device = try device()
            guard let entry = try device.enrollments.entry(applicationId: config.applicationId, userId: userId) else {
                return false
            }
            _ = try await assertAndFinish(userId: userId, entry: entry, device: device) {
                credential async throws(ZSMError) in
                try await self.relyingParty.unenroll(userId: userId, credential: credential)
            }
            if let id = Base64URL.decode(entry.credentialId) { try? device.store.delete(id: id) }
            try device.enrollments.remove(applicationId: config.applicationId, userId: userId)
            return true
        } catch {
            return false
        }
    }

    /// Replaces the PIN that protects this device's passkeys.
    /// - Throws: `userVerificationFailed` for a wrong current PIN (it counts as a failed
    ///   attempt), `lockedOut` after too many.
    public func changePIN(from current: String, to new: String) async throws(ZSMError) {
        try await changeSecret(.pin, from: current, to: new)
    }

    /// Replaces the password that protects this device's passkeys.
    public func changePassword(from current: String, to new: String) async throws(ZSMError) {
        try await changeSecret(.password, from: current, to: new)
    }

    private func changeSecret(_ kind: SecretKind, from current: String, to new: String) async throws(ZSMError) {
        let device = try device()
        do {
            try device.client.authenticator.changeSecret(kind, from: current, to: new)
        } catch {
            throw Self.map(error)
        }
    }

    // MARK: - Internals

    struct Device {
        let store: DirectoryCredentialStore
        let client: WebAuthnClient
        let enrollments: DeviceEnrollments
    }

    func device() throws(ZSMError) -> Device {
        let store: DirectoryCredentialStore
        do {
            store = try DirectoryCredentialStore(directory: config.storageLocation)
        } catch {
            throw ZSMError(.keyStoreDamaged, error.message)
        }
        let authenticator = SoftwareAuthenticator(store: store, deviceKey: store.deviceKey, consent: consent)
        return Device(
            store: store, client: WebAuthnClient(origin: config.effectiveOrigin, authenticator: authenticator),
            enrollments: DeviceEnrollments(directory: config.storageLocation))
    }

    private func assertAndFinish(
        userId: String, entry: DeviceEnrollments.Entry, device: Device,
        finish: (AuthenticationResponseJSON) async throws(ZSMError) -> CeremonyOutcome
    ) async throws(ZSMError) -> CeremonyOutcome {
        var options = try await relyingParty.beginAuthentication(userId: userId).options
        // Only this user's passkey may answer, even if the device holds others for the RP.
        if let id = Base64URL.decode(entry.credentialId) {
            options.allowCredentials = [CredentialDescriptor(id: Base64URLBytes(id))]
        }
        let verification = try await verifyUser(userId: userId, creating: false)
        let response: AuthenticationResponseJSON
        do {
            response = try device.client.get(options, verification: verification)
        } catch {
            throw Self.map(error, missingMeansNotEnrolled: true)
        }
        return try await finish(response)
    }

    private var verificationLabel: String {
        switch config.userVerification {
        case .none: return "none"
        case .pin: return "pin"
        case .password: return "password"
        case .platform(let verifier): return verifier.method.rawValue
        }
    }

    /// Gets the user's PIN, password or platform confirmation, as configured.
    private func verifyUser(userId: String, creating: Bool) async throws(ZSMError) -> UserVerification {
        let purpose: ZSMConfig.SecretPurpose = creating ? .create(userId: userId) : .enter(userId: userId)
        switch config.userVerification {
        case .none:
            return .none
        case .pin(let provider):
            guard let pin = await provider(purpose), !pin.isEmpty else {
                throw ZSMError(.cancelled, "no PIN was given")
            }
            return .secret(.pin, pin)
        case .password(let provider):
            guard let password = await provider(purpose), !password.isEmpty else {
                throw ZSMError(.cancelled, "no password was given")
            }
            return .secret(.password, password)
        case .platform(let verifier):
            let verified: Bool
            do {
                verified = try await verifier.verifyUser(reason: creating ? "Create a passkey" : "Sign in")
            } catch {
                throw ZSMError(.cancelled, "user verification was interrupted")
            }
            guard verified else { throw ZSMError(.cancelled, "the user did not verify") }
            return .confirmedByPlatform(verifier.method)
        }
    }

    static func map(_ error: AuthenticatorError, missingMeansNotEnrolled: Bool = false) -> ZSMError {
        switch error.code {
        case .invalidState: return ZSMError(.alreadyEnrolled, "this device already holds a passkey for this user")
        case .notAllowed where missingMeansNotEnrolled:
            return ZSMError(.notEnrolled, "the passkey is no longer on this device; enroll again")
        case .notAllowed: return ZSMError(.consentRefused, error.message)
        case .notSupported: return ZSMError(.serverError, error.message)
        case .userVerificationFailed: return ZSMError(.userVerificationFailed, error.message)
        case .lockedOut: return ZSMError(.lockedOut, error.message)
        case .invalidData, .storageFailure: return ZSMError(.keyStoreDamaged, error.message)
        }
    }
}
