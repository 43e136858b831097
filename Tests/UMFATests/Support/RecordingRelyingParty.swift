import Foundation
import Synchronization
import UMFA
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// A custom ``RelyingParty``: forwards every call to another one (the HTTP one in these
/// tests) and records, in order, which calls were made and the counter of every assertion
/// it passed on.
final class RecordingRelyingParty: RelyingParty {
    let next: any RelyingParty
    private let log = Mutex<(calls: [String], signCounts: [UInt32])>(([], []))

    init(_ next: any RelyingParty) {
        self.next = next
    }

    var calls: [String] { log.withLock { $0.calls } }
    /// The sign counts of the assertions, in the order they were sent on.
    var signCounts: [UInt32] { log.withLock { $0.signCounts } }

    private func record(_ call: String, _ assertion: AuthenticationResponseJSON? = nil) {
        let count = assertion.flatMap { try? AuthenticatorData(bytes: $0.response.authenticatorData.bytes) }?
            .signCount
        log.withLock { log in
            log.calls.append(call)
            if let count { log.signCounts.append(count) }
        }
    }

    func beginRegistration(userId: String, displayName: String?, enrollmentToken: String?) async throws(ZSMError)
        -> CeremonyOptions<CreationOptionsJSON>
    {
        record("beginRegistration")
        return try await next.beginRegistration(
            userId: userId, displayName: displayName, enrollmentToken: enrollmentToken)
    }

    func finishRegistration(userId: String, credential: RegistrationResponseJSON, deviceName: String?)
        async throws(ZSMError) -> CeremonyOutcome
    {
        record("finishRegistration")
        return try await next.finishRegistration(userId: userId, credential: credential, deviceName: deviceName)
    }

    func beginAuthentication(userId: String?) async throws(ZSMError) -> CeremonyOptions<RequestOptionsJSON> {
        record("beginAuthentication")
        return try await next.beginAuthentication(userId: userId)
    }

    func finishAuthentication(userId: String?, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        record("finishAuthentication", credential)
        return try await next.finishAuthentication(userId: userId, credential: credential)
    }

    func unenroll(userId: String, credential: AuthenticationResponseJSON) async throws(ZSMError) -> CeremonyOutcome {
        record("unenroll", credential)
        return try await next.unenroll(userId: userId, credential: credential)
    }
}
