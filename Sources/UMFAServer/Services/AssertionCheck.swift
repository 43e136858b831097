import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Verifies an assertion of an application's user against a challenge this server issued,
/// through the one ``CeremonyEngine``: the shared core of sign-in, unenroll and
/// `validate-token` in credential mode, under the abuse limits and with its audit events.
struct AssertionCheck {
    let ceremonies: Ceremonies
    let application: ApplicationRecord
    let caller: Caller
    /// Whether failures count against the abuse limits: yes for devices; no for an application
    /// backend relaying its users' assertions (`validate-token`, authenticated by its API key),
    /// whose one address would otherwise be blocked for all of its users.
    var countsFailures = true
    /// For device-facing routes, the one message every 401 is answered with, so failures do not
    /// tell an unknown credential from a wrong signature (the reason goes to the log);
    /// `nil` keeps the reasons, which `validate-token` documents for its API-key holders.
    var failureMessage: String?
    /// Why the assertion is checked, for the audit log: `sign_in`, `unenroll`, `validate_token`.
    var purpose = "sign_in"
    /// The kind of challenge the response must answer.
    var ceremony: CeremonyKind = .authentication
    /// For an out-of-band decision: the transaction's stored challenge, consumed, and the
    /// challenge derived from it that the response must have signed; `nil` when the response
    /// signs a stored challenge itself.
    var derivedChallenge: (stored: [UInt8], signed: [UInt8])?

    /// What ``readAhead(_:applicationID:userID:caller:ceremonies:)`` looked up and read with the
    /// application; `nil` reads it in ``verify(_:expectedUserID:)``.
    var prepared: (lookup: AssertionLookup, reading: AssertionReading)?

    struct Outcome {
        let credential: StoredCredential
        let verified: VerifiedAuthentication
    }

    static let unknownChallenge = "The challenge is unknown, expired or already used"

    /// Reads, in one statement, what verifying a sign-in's `response` for the application
    /// `applicationID` names needs, the application included (docs/performance/README.md,
    /// "PostgreSQL round trips per operation"): the application, and the lookup and reading for
    /// ``prepared``; the application alone when the client data cannot be read, which
    /// ``verify(_:expectedUserID:)`` then refuses under the abuse limits.
    static func readAhead(
        _ response: AuthenticationResponseJSON, applicationID text: String, userID: String?, caller: Caller,
        ceremonies: Ceremonies
    ) async throws -> (ApplicationRecord, (lookup: AssertionLookup, reading: AssertionReading)?) {
        guard let applicationID = UUID(uuidString: text) else {
            throw ServiceError.invalid("application_id must be a UUID")
        }
        guard
            let lookup = lookup(
                response, applicationID: applicationID, userID: userID, caller: caller, ceremonies: ceremonies)
        else { return (try await ceremonies.store.application(text), nil) }
        let reading = try await ceremonies.store.assertionReading(lookup)
        guard let application = reading.application else { throw ServiceError.unknownApplication }
        return (application, (lookup, reading))
    }

    /// What verifying `response` looks up: the challenge its client data names (or the stored
    /// one of a derived challenge), its credential, and the abuse counters kept in the store;
    /// `nil` when the client data cannot be read.
    private static func lookup(
        _ response: AuthenticationResponseJSON, applicationID: UUID, userID: String?, caller: Caller,
        ceremonies: Ceremonies, ceremony: CeremonyKind = .authentication, storedChallenge: [UInt8]? = nil,
        countsFailures: Bool = true
    ) -> AssertionLookup? {
        guard let challenge = storedChallenge ?? CeremonyEngine<ApplicationCredentials>.challenge(of: response)
        else { return nil }
        return AssertionLookup(
            applicationID: applicationID, challenge: challenge, ceremony: ceremony, credentialID: response.rawId.bytes,
            abuseKeys: countsFailures
                ? ceremonies.abuse.ceremonyCountersToRead(application: applicationID, userID: userID, caller: caller)
                : [])
    }

    /// Verifies under the abuse limits: a 401 counts as a failed attempt for the user and the
    /// client address, and a blocked caller gets 429 before the response is judged.
    /// - Parameter expectedUserID: the user the caller names, or `nil` for a discoverable sign-in.
    func verify(_ response: AuthenticationResponseJSON, expectedUserID: String?) async throws -> Outcome {
        var lookup = prepared?.lookup
        var reading = prepared?.reading
        if prepared == nil {
            lookup = Self.lookup(
                response, applicationID: application.id, userID: expectedUserID, caller: caller,
                ceremonies: ceremonies, ceremony: ceremony, storedChallenge: derivedChallenge?.stored,
                countsFailures: countsFailures)
            if let lookup { reading = try await ceremonies.store.assertionReading(lookup) }
        }
        let result: (outcome: Outcome, event: AuditEventRecord)
        do {
            if countsFailures {
                result = try await ceremonies.abuse.ceremony(
                    application: application.id, userID: expectedUserID, caller: caller,
                    read: reading?.abuseCounters
                ) {
                    try await check(response, expectedUserID: expectedUserID, lookup: lookup, reading: reading)
                }
            } else {
                result = try await check(response, expectedUserID: expectedUserID, lookup: lookup, reading: reading)
            }
        } catch let error as ServiceError where error.code == .unauthenticated {
            ceremonies.metrics.ceremony(purpose, succeeded: false)
            await ceremonies.audit.record(
                .authenticationFailed, application: application.id, actor: .anonymous, userID: expectedUserID,
                credentialID: response.rawId.bytes, caller: caller,
                details: ["purpose": .string(purpose), "reason": .string(error.detail ?? error.message)])
            guard let failureMessage else { throw error }
            throw ServiceError.unauthenticated(
                failureMessage, detail: error.message, reason: error.reason == .unknownCredential ? error.reason : nil)
        }
        ceremonies.metrics.ceremony(purpose, succeeded: true)
        await ceremonies.audit.written(result.event)
        return result.outcome
    }

    /// WebAuthn L3 §7.2 against the reading: the challenge must be there and fresh, the
    /// credential known, the assertion valid; then the challenge is consumed, the use recorded
    /// and the success event written in one store write. Any refusal after the challenge was
    /// found consumes it, so a challenge is judged once.
    private func check(
        _ response: AuthenticationResponseJSON, expectedUserID: String?, lookup: AssertionLookup?,
        reading: AssertionReading?
    ) async throws -> (outcome: Outcome, event: AuditEventRecord) {
        guard let lookup, let reading else {
            throw ServiceError.invalid(CeremonyEngine<ApplicationCredentials>.unreadableClientData)
        }
        guard let record = reading.challenge, record.expiresAt > ceremonies.now() else {
            throw ServiceError.unauthenticated(Self.unknownChallenge)
        }
        // Set once the write that consumes the challenge has been sent.
        var consumed = false
        do {
            // User ids are compared as bytes: a Unicode-equal spelling is another user (docs/contract.md §4).
            if let bound = record.userID, let expectedUserID, !bound.isSameBytes(as: expectedUserID) {
                throw ServiceError.unauthenticated("The challenge was issued for another user")
            }
            let identifiedUserID = record.userID ?? expectedUserID
            let engine = CeremonyEngine(application: application, ceremonies: ceremonies)
            let challenge = CeremonyEngine<ApplicationCredentials>.Challenge(
                bytes: derivedChallenge?.signed ?? lookup.challenge, record: record)
            let found = reading.credential.flatMap { credential in
                reading.ownerHandle.map { ApplicationCredentials.Owned(credential: credential, ownerHandle: $0) }
            }
            // The credential came with its owner's user handle, in the one read.
            let verified = try await engine.verifyAssertion(response, challenge: challenge, found: found) { found in
                guard let identifiedUserID else { return nil }
                // Usually the owner itself, already read; another user's handle makes step 6 fail.
                if identifiedUserID.isSameBytes(as: found.credential.userID) { return found.ownerHandle }
                guard
                    let user = try await ceremonies.store.user(applicationID: application.id, userID: identifiedUserID)
                else {
                    throw ServiceError.unauthenticated("The credential does not belong to this user")
                }
                return user.userHandle
            }
            let stored = verified.stored.credential
            let used = ApplicationCredentials.used(stored, verified: verified.verified.record, at: ceremonies.now())
            let event = ceremonies.audit.event(
                .authenticationSucceeded, application: application.id, actor: .user(used.userID), userID: used.userID,
                credentialID: used.credentialID, caller: caller,
                details: [
                    "purpose": .string(purpose),
                    "user_verified": .bool(verified.verified.authenticatorData.flags.isUserVerified),
                    "backed_up": .bool(used.backupState),
                ], at: ceremonies.audit.now())
            // Step 22's compare is in the statement: of two assertions checked against this
            // counter value, or answering this challenge, only the first is recorded.
            consumed = true
            switch try await ceremonies.store.recordAssertion(
                lookup, credential: used, expectedSignCount: stored.signCount, event: event)
            {
            case .recorded: return (Outcome(credential: used, verified: verified.verified), event)
            case .challengeUsed: throw ServiceError.unauthenticated(Self.unknownChallenge)
            case .signCountMoved:
                throw ServiceError.unauthenticated("The sign count changed while this assertion was checked")
            }
        } catch  where !consumed {
            // Whatever refused it; a store that cannot consume it now leaves it to expire, and
            // the refusal is answered as it was.
            _ = try? await ceremonies.store.consumeChallenge(
                lookup.challenge, applicationID: lookup.applicationID, ceremony: lookup.ceremony)
            throw error
        }
    }
}
