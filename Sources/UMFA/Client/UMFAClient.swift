import Foundation
import Synchronization
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthnModel
import UMFAWebAuthnTypes

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
/// Every operation exists as `async throws(ZSMError)` and with a completion handler. One
/// client may run any number of operations at once: sign-ins with one passkey reach the
/// server in the order they were signed. Counters on the device are safe across clients and
/// processes, but that order is kept within a client, so use one client per storage location.
public final class UMFAClient: Sendable {
    /// The SDK's semantic version, the same as `umfa --version`.
    public static let versionString = UMFAVersion.string

    /// The configuration.
    public let config: ZSMConfig
    /// Where ceremonies are performed.
    public let relyingParty: any RelyingParty
    /// Asked before a passkey is created or an existing one reported (`AuthenticatorConsent`).
    public let consent: any AuthenticatorConsent
    /// The authenticator given at creation; `nil` for the software one over
    /// ``ZSMConfig/storageLocation``.
    let givenAuthenticator: (any Authenticator)?
    /// The opened key store, shared by every operation of this client.
    let openedDevice = Mutex<Device?>(nil)
    /// Orders signatures and their verification (see ``CeremonyGate``).
    let gate = CeremonyGate()

    /// Creates a client that speaks the UMFA HTTP API at `config.hostURL`.
    public convenience init(_ config: ZSMConfig) {
        self.init(config, relyingParty: UMFAHTTPRelyingParty(config: config))
    }

    /// Creates a client whose ceremonies go through `relyingParty`.
    ///
    /// - Parameters:
    ///   - config: the server, the application and how the device keeps and protects passkeys.
    ///   - relyingParty: where the ceremonies are begun and finished.
    ///   - consent: asked before a passkey is created or an existing one reported; a refusal
    ///     is ``ZSMError/Code/cancelled``. `AlwaysConsent` by default.
    ///   - authenticator: makes and uses the passkeys: the platform's (through an adapter, see
    ///     docs/sdk.md) or a security key; `nil`, the default, is UMFA's software authenticator
    ///     over ``ZSMConfig/storageLocation``.
    public init(
        _ config: ZSMConfig, relyingParty: any RelyingParty, consent: any AuthenticatorConsent = AlwaysConsent(),
        authenticator: (any Authenticator)? = nil
    ) {
        self.config = config
        self.relyingParty = relyingParty
        self.consent = consent
        self.givenAuthenticator = authenticator
    }

    // MARK: - Operations

    /// Whether this device holds a passkey for `userId`; answered from the device alone. A
    /// passkey whose key is gone (erased after a lockout) does not count; a damaged one does,
    /// and ``authenticate(userId:)`` reports the damage.
    public func checkEnrollment(userId: String) async throws(ZSMError) -> EnrollmentStatus {
        try config.validate()
        let device = try device()
        var entry = try device.enrollments.entry(applicationId: config.applicationId, userId: userId)
        if let found = entry, device.isSoftware, !device.holdsKey(credentialId: found.credentialId) { entry = nil }
        return EnrollmentStatus(
            userId: userId, enrolled: entry != nil, credentialId: entry?.credentialId, enrolledAt: entry?.enrolledAt)
    }

    /// Creates a passkey for `userId` on this device and registers it with the server.
    ///
    /// For applications with the `grant` policy, ``ZSMConfig/enrollmentTokenProvider`` supplies
    /// the enrollment token. With a PIN or password, the user chooses it now. A passkey this
    /// device held for the user before (no longer registered, or damaged) is replaced.
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
        try checkRelyingPartyID(begun.options.rp.id)
        let verified = try await verifyUser(userId: userId, creating: true)
        let response = try await device.create(
            begun.options, context: context(verified, keyName: config.deviceName))
        let outcome: CeremonyOutcome
        do {
            outcome = try await relyingParty.finishRegistration(
                userId: userId, credential: response, deviceName: config.deviceName)
        } catch {
            try? device.store.delete(id: response.rawId.bytes)
            throw error
        }
        let now = Date()
        let previous = try device.enrollments.entry(applicationId: config.applicationId, userId: userId)
        try device.enrollments.record(
            DeviceEnrollments.Entry(
                applicationId: config.applicationId, userId: userId, credentialId: outcome.credentialId,
                rpId: begun.options.rp.id ?? config.hostURL.host ?? "", enrolledAt: now,
                userVerification: verified.label, biometricSetHash: verified.biometricSetHash,
                devicePasscodeFallback: verified.devicePasscodeFallback))
        if let previous, previous.credentialId != outcome.credentialId,
            let oldID = Base64URL.decode(previous.credentialId)
        {
            try? device.store.delete(id: oldID)
        }
        return EnrollmentResult(
            userId: outcome.userId, credentialId: outcome.credentialId, token: outcome.token, enrolledAt: now,
            userVerification: verified.label, traceId: outcome.traceId, authenticator: authenticatorName)
    }

    /// Signs in `userId` with this device's passkey and returns a login token.
    public func authenticate(userId: String) async throws(ZSMError) -> AuthenticationResult {
        let (outcome, entry) = try await signIn(userId: userId)
        guard let token = outcome.token, !token.isEmpty else {
            throw ZSMError(.serverError, "the server signed the user in but sent no token", traceId: outcome.traceId)
        }
        return AuthenticationResult(
            userId: outcome.userId, credentialId: outcome.credentialId, token: token, authenticatedAt: Date(),
            userVerification: entry.userVerification, traceId: outcome.traceId, authenticator: authenticatorName)
    }

    /// `software`, or `external` for an authenticator the app gave.
    var authenticatorName: String {
        givenAuthenticator == nil || givenAuthenticator is WebAuthnClient ? "software" : "external"
    }

    /// Replaces the PIN that protects this device's passkeys.
    /// - Throws: `userVerificationFailed` for a wrong current PIN (it counts as a failed
    ///   attempt on the passkey it was tried on; nothing changes) or a new PIN of fewer than
    ///   4 digits or with other characters, `lockedOut` when every PIN passkey here is locked,
    ///   `notEnrolled` when no passkey here is protected by a PIN.
    public func changePIN(from current: String, to new: String) async throws(ZSMError) {
        try await changeSecret(.pin, from: current, to: new)
    }

    /// Replaces the password that protects this device's passkeys; throws as ``changePIN(from:to:)``.
    public func changePassword(from current: String, to new: String) async throws(ZSMError) {
        try await changeSecret(.password, from: current, to: new)
    }

    private func changeSecret(_ kind: SecretKind, from current: String, to new: String) async throws(ZSMError) {
        let authenticator = try device().client.authenticator
        // Re-sealing keeps each credential's current counter, so sign-ins may run meanwhile.
        let changed: Int
        do throws(AuthenticatorError) {
            changed = try authenticator.changeSecret(kind, from: current, to: new)
        } catch {
            throw Self.map(PublicKeyCredentialError(error), creating: false)
        }
        guard changed > 0 else {
            throw ZSMError(.notEnrolled, "no passkey on this device is protected by a \(kind.rawValue)")
        }
    }
}
