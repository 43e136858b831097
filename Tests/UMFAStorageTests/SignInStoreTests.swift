import Foundation
import Testing
import UMFAStorage

@Suite("Storage: a sign-in's reads and writes in few statements")
struct SignInStoreTests {
    static func lookup(
        _ challenge: ChallengeRecord, credentialID: [UInt8], keys: [AbuseCounterKey] = []
    ) -> AssertionLookup {
        AssertionLookup(
            applicationID: challenge.applicationID, challenge: challenge.challenge, ceremony: challenge.ceremony,
            credentialID: credentialID, abuseKeys: keys)
    }

    static func event(_ application: UUID, id: String = UUID().uuidString) -> AuditEventRecord {
        AuditEventRecord(
            id: id, occurredAt: Records.time(5), applicationID: application, action: "authentication.succeeded",
            actor: "user:alice", userID: "alice", credentialID: "Y3JlZA", clientAddress: "192.0.2.7",
            traceID: "trace-\(id)", details: ["purpose": .string("sign_in")])
    }

    static func used(_ credential: StoredCredential, signCount: UInt32) -> StoredCredential {
        var used = credential
        used.signCount = signCount
        used.backupState = true
        used.lastUsedAt = Records.time(5)
        return used
    }

    /// An application with alice's passkey at sign count 7 and a challenge issued for her sign-in.
    static func signingIn(_ store: any UMFAStore) async throws -> (
        app: ApplicationRecord, credential: StoredCredential, challenge: ChallengeRecord
    ) {
        let app = try await Records.seed(store)
        let credential = Records.credential(app.id, "alice", signCount: 7)
        try await store.insertCredential(credential)
        let challenge = Records.challenge(app.id)
        try await store.insertChallenge(challenge)
        return (app, credential, challenge)
    }

    @Test(
        "options store the challenge with the application's user verification and the user's credentials",
        arguments: Engine.allCases)
    func issue(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let older = Records.credential(app.id, "alice", createdAt: Records.time(-10))
            let newer = Records.credential(app.id, "alice", createdAt: Records.time(-5))
            for credential in [newer, older] { try await store.insertCredential(credential) }
            let request = SignInChallengeRequest(
                applicationID: app.id, userID: "alice", challenge: Records.bytes(32), ceremony: .authentication,
                expiresAt: Records.time(300), sampleSeed: Records.bytes(32))
            let issue = try await store.issueSignInChallenge(request)
            #expect(issue.application == app)
            #expect(issue.credentials == [older, newer], "oldest first")
            #expect(issue.sample.isEmpty)
            let stored = try #require(
                try await store.consumeChallenge(request.challenge, applicationID: app.id, ceremony: .authentication))
            #expect(stored.userID == "alice" && stored.userVerification == app.userVerification)
            #expect(stored.expiresAt == request.expiresAt && stored.userpwTime == nil && stored.grant == nil)
            #expect(Set(stored.allowCredentials) == Set([older.credentialID, newer.credentialID]))
        }
    }

    @Test(
        "a user without credentials gets a challenge bound to them, without a list, and the pseudo credentials' sample",
        arguments: Engine.allCases)
    func issueWithoutCredentials(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob", "carol"])
            for user in ["alice", "alice", "carol"] {
                try await store.insertCredential(Records.credential(app.id, user, createdAt: Records.time(-10)))
            }
            for user in ["bob", "nobody"] {
                for _ in 0..<4 {
                    let seed = Records.bytes(32)
                    let request = SignInChallengeRequest(
                        applicationID: app.id, userID: user, challenge: Records.bytes(32), ceremony: .authentication,
                        expiresAt: Records.time(300), sampleSeed: seed)
                    let issue = try await store.issueSignInChallenge(request)
                    #expect(issue.application == app && issue.credentials.isEmpty)
                    #expect(issue.sample == (try await store.sampleCredentials(applicationID: app.id, seed: seed)))
                    #expect(!issue.sample.isEmpty)
                    let stored = try #require(
                        try await store.consumeChallenge(
                            request.challenge, applicationID: app.id, ceremony: .authentication))
                    #expect(stored.userID == user && stored.allowCredentials.isEmpty)
                }
            }
        }
    }

    @Test("options for an unknown application store nothing", arguments: Engine.allCases)
    func issueForUnknownApplication(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            try await store.insertCredential(Records.credential(app.id, "alice"))
            let unknown = UUID()
            let request = SignInChallengeRequest(
                applicationID: unknown, userID: "alice", challenge: Records.bytes(32), ceremony: .authentication,
                expiresAt: Records.time(300), sampleSeed: Records.bytes(32))
            let issue = try await store.issueSignInChallenge(request)
            #expect(issue.application == nil && issue.credentials.isEmpty && issue.sample.isEmpty)
            #expect(
                try await store.consumeChallenge(request.challenge, applicationID: unknown, ceremony: .authentication)
                    == nil)
        }
    }

    @Test(
        "the reading finds the application, challenge, credential with its owner and counters, and consumes nothing",
        arguments: Engine.allCases)
    func reading(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let credential = Records.credential(app.id, "alice", signCount: 7)
            try await store.insertCredential(credential)
            let owner = try #require(try await store.user(applicationID: app.id, userID: "alice"))
            let challenge = Records.challenge(app.id)
            try await store.insertChallenge(challenge)
            let blocked = AbuseCounterKey(counter: "user", key: "00112233445566778899aabbccddeeff")
            let quiet = AbuseCounterKey(counter: "address", key: "ffeeddccbbaa99887766554433221100")
            let now = Records.time(1)
            _ = try await store.recordAbuseFailure(
                blocked, now: now, window: 60, strikeMemoryStart: now.addingTimeInterval(-120))
            _ = try await store.blockAbuseCounter(blocked, until: Records.time(90), ifFailuresAtLeast: 1, now: now)

            let reading = try await store.assertionReading(
                Self.lookup(challenge, credentialID: credential.credentialID, keys: [blocked, quiet]))
            #expect(reading.application == app)
            #expect(reading.challenge == challenge)
            #expect(reading.credential == credential)
            #expect(reading.ownerHandle == owner.userHandle)
            #expect(reading.abuseCounters.map(\.key) == [blocked])
            #expect(reading.abuseCounters.first?.blockedUntil == Records.time(90))

            let nothing = try await store.assertionReading(
                AssertionLookup(
                    applicationID: app.id, challenge: challenge.challenge, ceremony: .registration,
                    credentialID: Records.bytes(32), abuseKeys: []))
            #expect(nothing.application == app)
            #expect(nothing.challenge == nil, "another ceremony's challenge is not this one")
            #expect(nothing.credential == nil && nothing.ownerHandle == nil && nothing.abuseCounters.isEmpty)
            let unknown = try await store.assertionReading(
                AssertionLookup(
                    applicationID: UUID(), challenge: challenge.challenge, ceremony: .authentication,
                    credentialID: credential.credentialID, abuseKeys: []))
            #expect(unknown.application == nil && unknown.challenge == nil && unknown.credential == nil)
            #expect(
                try await store.consumeChallenge(challenge.challenge, applicationID: app.id, ceremony: .authentication)
                    == challenge, "the readings consumed nothing")
        }
    }

    @Test(
        "recording consumes the challenge, moves the counter and writes the event together; a replay records nothing",
        arguments: Engine.allCases)
    func record(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let (app, credential, challenge) = try await Self.signingIn(store)
            let lookup = Self.lookup(challenge, credentialID: credential.credentialID)
            let used = Self.used(credential, signCount: 8)
            let event = Self.event(app.id)
            #expect(
                try await store.recordAssertion(lookup, credential: used, expectedSignCount: 7, event: event)
                    == .recorded)
            #expect(try await store.credential(applicationID: app.id, credentialID: credential.credentialID) == used)
            #expect(
                try await store.auditEvents(AuditEventFilter(applicationID: app.id), after: nil, limit: 10) == [event])

            // The same challenge again (a replayed response): refused, nothing written.
            let replay = Self.used(credential, signCount: 9)
            #expect(
                try await store.recordAssertion(
                    lookup, credential: replay, expectedSignCount: 8, event: Self.event(app.id)) == .challengeUsed)
            #expect(try await store.credential(applicationID: app.id, credentialID: credential.credentialID) == used)
            #expect(
                try await store.auditEvents(AuditEventFilter(applicationID: app.id), after: nil, limit: 10).count == 1)
        }
    }

    @Test(
        "a counter that moved since the reading consumes the challenge but records nothing (a clone, §7.2 step 22)",
        arguments: Engine.allCases)
    func signCountMoved(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let (app, credential, challenge) = try await Self.signingIn(store)
            // Another sign-in recorded counter 8 after this one read 7.
            #expect(try await store.updateCredentialUse(Self.used(credential, signCount: 8), expectedSignCount: 7))
            let lookup = Self.lookup(challenge, credentialID: credential.credentialID)
            #expect(
                try await store.recordAssertion(
                    lookup, credential: Self.used(credential, signCount: 8), expectedSignCount: 7,
                    event: Self.event(app.id)) == .signCountMoved)
            #expect(
                try await store.credential(applicationID: app.id, credentialID: credential.credentialID)?.signCount == 8
            )
            #expect(try await store.auditEvents(AuditEventFilter(applicationID: app.id), after: nil, limit: 10).isEmpty)
            #expect(
                try await store.consumeChallenge(challenge.challenge, applicationID: app.id, ceremony: .authentication)
                    == nil, "consumed all the same")
        }
    }

    @Test("of 10 concurrent recordings of one challenge exactly one is recorded", arguments: Engine.allCases)
    func concurrentRecord(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let credential = Records.credential(app.id, "alice", signCount: 1)
            try await store.insertCredential(credential)
            let challenge = Records.challenge(app.id)
            try await store.insertChallenge(challenge)
            let lookup = Self.lookup(challenge, credentialID: credential.credentialID)
            let outcomes = try await withThrowingTaskGroup(of: AssertionRecording.self) { group in
                for count in 2..<12 {
                    group.addTask {
                        try await store.recordAssertion(
                            lookup, credential: Self.used(credential, signCount: UInt32(count)), expectedSignCount: 1,
                            event: Self.event(app.id))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .recorded }.count == 1)
            #expect(outcomes.filter { $0 == .challengeUsed }.count == 9)
            #expect(
                try await store.auditEvents(AuditEventFilter(applicationID: app.id), after: nil, limit: 20).count == 1)
        }
    }
}
