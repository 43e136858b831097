import Foundation

/// What the verification of one assertion reads (``SignInStore/assertionReading(_:)``), in one
/// statement on PostgreSQL: the application, the challenge (read, not consumed), the credential
/// with its owner's user handle, and the abuse counters asked for.
package struct AssertionReading: Sendable {
    /// The application; `nil` when there is none with the id.
    package var application: ApplicationRecord?
    /// The challenge as stored; `nil` when unknown, used, or of another application or ceremony.
    package var challenge: ChallengeRecord?
    /// The credential; `nil` when the application holds none with the id, or its owner is gone.
    package var credential: StoredCredential?
    /// The credential's owner's WebAuthn user handle (with ``credential``).
    package var ownerHandle: [UInt8]?
    /// The stored counters among the keys asked for (absent keys have no failures).
    package var abuseCounters: [AbuseCounterRecord]

    /// Creates a reading.
    package init(
        application: ApplicationRecord?, challenge: ChallengeRecord?, credential: StoredCredential?,
        ownerHandle: [UInt8]?, abuseCounters: [AbuseCounterRecord]
    ) {
        self.application = application
        self.challenge = challenge
        self.credential = credential
        self.ownerHandle = ownerHandle
        self.abuseCounters = abuseCounters
    }
}

/// What an assertion's verification looks up: the challenge the client data names, the
/// credential the response names, the abuse counters that limit the caller.
package struct AssertionLookup: Sendable {
    /// The application.
    package var applicationID: UUID
    /// The stored challenge's bytes.
    package var challenge: [UInt8]
    /// The ceremony the challenge must have been issued for.
    package var ceremony: CeremonyKind
    /// The credential id the response names (`rawId`).
    package var credentialID: [UInt8]
    /// The abuse counters to read with it; empty when failures are counted in memory.
    package var abuseKeys: [AbuseCounterKey]

    /// Creates a lookup.
    package init(
        applicationID: UUID, challenge: [UInt8], ceremony: CeremonyKind, credentialID: [UInt8],
        abuseKeys: [AbuseCounterKey]
    ) {
        self.applicationID = applicationID
        self.challenge = challenge
        self.ceremony = ceremony
        self.credentialID = credentialID
        self.abuseKeys = abuseKeys
    }
}

/// How ``SignInStore/recordAssertion(_:credential:expectedSignCount:event:)`` ended.
package enum AssertionRecording: Sendable, Equatable {
    /// The challenge was consumed, the use recorded and the event written.
    case recorded
    /// The challenge was gone (used meanwhile, by this instance or another): nothing written.
    case challengeUsed
    /// The challenge was consumed, but the sign count had moved (a replay or a clone, WebAuthn
    /// L3 §7.2 step 22): no use recorded, no event written.
    case signCountMoved
}

/// The sign-in's options and the challenge they carry, issued together
/// (``SignInStore/issueSignInChallenge(_:)``).
package struct SignInChallengeIssue: Sendable {
    /// The application; `nil` when there is none with the id (and nothing was stored).
    package var application: ApplicationRecord?
    /// The user's credentials, oldest first (ties by credential id bytes).
    package var credentials: [StoredCredential]
    /// For a user without credentials, the credentials of the real user the request's
    /// ``SignInChallengeRequest/sampleSeed`` picks, as ``CredentialStore/sampleCredentials(applicationID:seed:)``
    /// picks them, oldest first: the shape of the pseudo credentials the options list instead.
    /// Empty when the user has credentials (or the application none).
    package var sample: [StoredCredential]

    /// Creates an issue.
    package init(application: ApplicationRecord?, credentials: [StoredCredential], sample: [StoredCredential]) {
        self.application = application
        self.credentials = credentials
        self.sample = sample
    }
}

/// A challenge for a named user's sign-in, as ``SignInStore/issueSignInChallenge(_:)`` stores it:
/// the user verification is the application's, the allowed credentials the user's.
package struct SignInChallengeRequest: Sendable {
    /// The application.
    package var applicationID: UUID
    /// The user the challenge is bound to.
    package var userID: String
    /// The challenge bytes.
    package var challenge: [UInt8]
    /// The ceremony it is issued for.
    package var ceremony: CeremonyKind
    /// When it stops being accepted.
    package var expiresAt: Date
    /// The seed that picks the sample for a user without credentials
    /// (``SignInChallengeIssue/sample``).
    package var sampleSeed: [UInt8]

    /// Creates a request.
    package init(
        applicationID: UUID, userID: String, challenge: [UInt8], ceremony: CeremonyKind, expiresAt: Date,
        sampleSeed: [UInt8]
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.challenge = challenge
        self.ceremony = ceremony
        self.expiresAt = expiresAt
        self.sampleSeed = sampleSeed
    }
}

/// A sign-in's reads and writes as few statements as the engine allows (docs/performance/README.md,
/// "PostgreSQL round trips per operation"): on PostgreSQL, the options are one statement and its
/// commit proof; the verification one read, then one write and its proof. SQLite runs the shared
/// statements one by one, in process.
package protocol SignInStore: Sendable {
    /// Reads the application and the user's credentials (or, for a user without any, the sample
    /// their pseudo credentials are shaped after) and stores the challenge, bound to the user,
    /// with the application's user verification and the user's credentials as its
    /// `allowCredentials` (none for a user without credentials), all in one statement on
    /// PostgreSQL: a user with credentials and one without cost the same statements.
    func issueSignInChallenge(_ request: SignInChallengeRequest) async throws -> SignInChallengeIssue

    /// Reads what verifying an assertion needs (``AssertionReading``), in one statement on
    /// PostgreSQL. Consumes nothing: ``recordAssertion(_:credential:expectedSignCount:event:)``
    /// does, and a refusal consumes the challenge through ``CeremonyStore/consumeChallenge(_:applicationID:ceremony:)``.
    func assertionReading(_ lookup: AssertionLookup) async throws -> AssertionReading

    /// Consumes the challenge of `lookup`; then, only when it was there, records the credential's
    /// use when its stored sign count is still `expectedSignCount` (as
    /// ``CredentialStore/updateCredentialUse(_:expectedSignCount:)``); then, only when recorded,
    /// writes `event`. One statement on PostgreSQL, so of two verifications of one challenge,
    /// or against one counter value, on one instance or many, only one is recorded.
    func recordAssertion(
        _ lookup: AssertionLookup, credential: StoredCredential, expectedSignCount: UInt32, event: AuditEventRecord
    ) async throws -> AssertionRecording
}
