import Foundation
import UMFAEncoding

/// When ``UMFAClient/unenroll(userId:localRemoval:)`` removes the passkey from the device.
public enum LocalRemoval: String, Sendable, Hashable {
    /// Only once the server confirmed the removal; otherwise the device keeps its key so the
    /// user can retry (``UMFAClient/unenroll(userId:)``).
    case afterServerConfirms
    /// Also when the server cannot confirm it: unreachable, or it no longer knows the passkey
    /// (deleted by an administrator or through another device), or the passkey here is locked
    /// or damaged. The user cancelling a question still stops everything.
    case evenIfServerFails
}

/// What ``UMFAClient/unenroll(userId:localRemoval:)`` did.
public struct UnenrollmentResult: Sendable, Hashable {
    /// The user.
    public let userId: String
    /// Whether the server confirmed that it removed the passkey.
    public let removedFromServer: Bool
    /// Whether the passkey, its enrollment record and the out-of-band device key are gone
    /// from this device.
    public let removedFromDevice: Bool
    /// Why the server did not confirm; `nil` when it did or nothing was enrolled.
    public let serverError: ZSMError?
}

extension UMFAClient {
    /// Removes `userId`'s passkey: first on the server (proven by an assertion), then on the
    /// device. Returns `false`, keeping the device's key so the user can retry, when the
    /// server could not be reached or refused; ``unenroll(userId:localRemoval:)`` with
    /// ``LocalRemoval/evenIfServerFails`` removes it anyway.
    public func unenroll(userId: String) async -> Bool {
        await unenroll(userId: userId, localRemoval: .afterServerConfirms).removedFromDevice
    }

    /// Removes `userId`'s passkey from the server and, as `localRemoval` says, from this device.
    ///
    /// With ``LocalRemoval/evenIfServerFails`` the device forgets the passkey (key file,
    /// enrollment record, out-of-band device key) whatever the server answered, unless the user
    /// cancelled: the way out when the credential was already deleted on the server or the
    /// server is gone. The server's copy, if any, is then the backend's to remove.
    public func unenroll(userId: String, localRemoval: LocalRemoval) async -> UnenrollmentResult {
        let entry: DeviceEnrollments.Entry
        let device: Device
        do throws(ZSMError) {
            try config.validate()
            device = try self.device()
            guard let found = try device.enrollments.entry(applicationId: config.applicationId, userId: userId) else {
                return UnenrollmentResult(
                    userId: userId, removedFromServer: false, removedFromDevice: false, serverError: nil)
            }
            entry = found
        } catch {
            return UnenrollmentResult(
                userId: userId, removedFromServer: false, removedFromDevice: false, serverError: error)
        }
        let failure: ZSMError
        do throws(ZSMError) {
            let relyingParty = relyingParty
            _ = try await assertAndFinish(userId: userId, entry: entry, device: device) {
                credential async throws(ZSMError) in
                try await relyingParty.unenroll(userId: userId, credential: credential)
            }
            let removed = forget(entry, device: device)
            return UnenrollmentResult(
                userId: userId, removedFromServer: true, removedFromDevice: removed, serverError: nil)
        } catch {
            failure = error
        }
        guard localRemoval == .evenIfServerFails, failure.code != .cancelled else {
            return UnenrollmentResult(
                userId: userId, removedFromServer: false, removedFromDevice: false, serverError: failure)
        }
        let removed = forget(entry, device: device)
        return UnenrollmentResult(
            userId: userId, removedFromServer: false, removedFromDevice: removed, serverError: failure)
    }

    /// ``unenroll(userId:localRemoval:)`` with a completion.
    public func unenroll(
        userId: String, localRemoval: LocalRemoval, completion: @escaping @Sendable (UnenrollmentResult) -> Void
    ) {
        Task { completion(await unenroll(userId: userId, localRemoval: localRemoval)) }
    }

    /// Deletes the passkey's key file, its enrollment record and the user's out-of-band device
    /// key; `true` when the record is gone.
    func forget(_ entry: DeviceEnrollments.Entry, device: Device) -> Bool {
        if device.isSoftware, let id = Base64URL.decode(entry.credentialId) { try? device.store.delete(id: id) }
        DeviceSigningKeys(config: config).remove(applicationId: entry.applicationId, userId: entry.userId)
        do throws(ZSMError) {
            try device.enrollments.remove(applicationId: entry.applicationId, userId: entry.userId)
            return true
        } catch {
            return false
        }
    }
}
