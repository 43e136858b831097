import Crypto
import Foundation
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthnModel

/// The user's verification for one ceremony, and how a passkey created under it is protected.
struct VerifiedUser: Sendable {
    /// What the authenticator is told.
    let verification: UserVerification
    /// How a new passkey is protected: `none`, `pin`, `password`, `biometric`, `devicePasscode`.
    let label: String
    /// The hash of the biometric set a new passkey is bound to; `nil` when it is not bound.
    var biometricSetHash: String?
    /// For a biometric enrollment, whether its sign-ins may fall back to the device passcode.
    var devicePasscodeFallback: Bool?
}

/// Platform verification, biometrics with a device-passcode fallback, and passkeys bound to the
/// biometric set they were created under.
extension UMFAClient {
    /// Asks a platform verifier: `true` passes; `false` is `userVerificationFailed`; a thrown
    /// `CancellationError` is `cancelled`; a thrown ``ZSMError`` (`cancelled`, `lockedOut`)
    /// stays as it is; anything else thrown is `userVerificationFailed`.
    static func confirm(with verifier: any PlatformUserVerifier, reason: String) async throws(ZSMError) {
        let verified: Bool
        do {
            verified = try await verifier.verifyUser(reason: reason)
        } catch let error as ZSMError {
            throw error
        } catch is CancellationError {
            throw ZSMError(.cancelled, "the user cancelled the \(verifier.method.rawValue) check")
        } catch {
            throw ZSMError(.userVerificationFailed, "the \(verifier.method.rawValue) check failed")
        }
        guard verified else {
            throw ZSMError(.userVerificationFailed, "the \(verifier.method.rawValue) check did not verify the user")
        }
    }

    /// Verifies with biometrics; when they are unavailable or fail (not when the user cancels),
    /// with `fallback`. `binding` records the biometric set for a new passkey.
    func verifyBiometrically(
        with verifier: any BiometricUserVerifier, fallback: (any DevicePasscodeUserVerifier)?, binding: Bool,
        reason: String
    ) async throws(ZSMError) -> VerifiedUser {
        let biometricFailure: ZSMError
        if let set = await verifier.currentBiometricSet() {
            do throws(ZSMError) {
                try await Self.confirm(with: verifier, reason: reason)
                return VerifiedUser(
                    verification: .confirmedByPlatform(.biometric),
                    label: PlatformVerificationMethod.biometric.rawValue,
                    biometricSetHash: binding ? Self.biometricSetHash(set) : nil,
                    devicePasscodeFallback: fallback != nil)
            } catch {
                if error.code == .cancelled { throw error }
                biometricFailure = error
            }
        } else {
            biometricFailure = ZSMError(.userNotEnrolled, "this device has no biometrics enrolled")
        }
        guard let fallback else { throw biometricFailure }
        try await Self.confirm(with: fallback, reason: reason)
        return VerifiedUser(
            verification: .confirmedByPlatform(.devicePasscode),
            label: PlatformVerificationMethod.devicePasscode.rawValue, devicePasscodeFallback: true)
    }

    /// Refuses a passkey bound to a biometric set the verifier no longer reports, and deletes
    /// it from the device: like a key bound to iOS's `biometryCurrentSet`, it is gone for good.
    func checkBiometricBinding(of entry: DeviceEnrollments.Entry, device: Device) async throws(ZSMError) {
        guard let boundHash = entry.biometricSetHash else { return }
        let verifier: any BiometricUserVerifier
        switch config.userVerification {
        case .biometric(let biometric, _, _): verifier = biometric
        case .platform(let biometric as any BiometricUserVerifier): verifier = biometric
        default:
            throw ZSMError(
                .invalidConfiguration,
                "the passkey of \(entry.userId) is bound to this device's biometrics; configure a biometric verifier")
        }
        let current = await verifier.currentBiometricSet()
        guard current.map(Self.biometricSetHash) != boundHash else { return }
        if let id = Base64URL.decode(entry.credentialId) { try? device.store.delete(id: id) }
        try? device.enrollments.remove(applicationId: entry.applicationId, userId: entry.userId)
        throw ZSMError(
            .keyDisappearedPermanently,
            "the device's biometrics changed since the passkey of \(entry.userId) was created; "
                + "it was deleted from this device, enroll again")
    }

    /// The base64url SHA-256 of a biometric set: the enrollment record keeps no raw set.
    static func biometricSetHash(_ set: Data) -> String {
        Base64URL.encode(SHA256.hash(data: set))
    }
}
