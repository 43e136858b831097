import Foundation
import Testing
import UMFAStorage

/// Deleting a whole account (docs/contract.md §8) in one transaction, on both engines: the user's
/// rows go, their grants' families are marked, the audit event and the webhook are written with
/// them; another user's and another application's rows stay; a failing step leaves the whole
/// account as it was.
struct AccountDeletionStoreTests {
    /// One user's rows in every table a deletion reaches.
    struct Account {
        let applicationID: UUID
        let userID: String
        let credential: StoredCredential
        let grants: [OAuthGrantRecord]
        let challenge: ChallengeRecord
        let enrollmentToken: EnrollmentTokenRecord

        /// Stores the user (when new) and their rows.
        static func make(_ store: any UMFAStore, _ applicationID: UUID, _ userID: String, family: String) async throws
            -> Account
        {
            _ = try await store.insertUser(Records.user(applicationID, userID))
            let credential = Records.credential(applicationID, userID)
            try await store.insertCredential(credential)
            try await store.saveUserProfile(
                UserProfileRecord(
                    applicationID: applicationID, userID: userID, email: "\(userID)@example.com", emailVerified: true,
                    givenName: nil, familyName: nil, phoneNumber: nil, phoneNumberVerified: false,
                    updatedAt: Records.epoch))
            let grants = [OAuthGrantKind.session, .refreshToken, .consent].map { kind in
                OAuthGrantRecord(
                    kind: kind, handleHash: Records.bytes(32), applicationID: applicationID,
                    family: kind == .consent ? nil : family, subject: userID, payload: Array("{}".utf8),
                    createdAt: Records.epoch, expiresAt: Records.time(3600), consumedAt: nil,
                    credentialID: kind == .consent ? nil : credential.credentialID)
            }
            for grant in grants { try await store.insertOAuthGrant(grant) }
            let challenge = Records.challenge(applicationID, user: userID)
            try await store.insertChallenge(challenge)
            let token = Records.enrollmentToken(applicationID, user: userID)
            try await store.insertEnrollmentToken(token)
            return Account(
                applicationID: applicationID, userID: userID, credential: credential, grants: grants,
                challenge: challenge, enrollmentToken: token)
        }

        /// Whether every row of the account is there, unspent (`true`), or none is (`false`).
        func isWhole(_ store: any UMFAStore) async throws -> Bool? {
            var present: [Bool] = [
                try await store.user(applicationID: applicationID, userID: userID) != nil,
                try await store.credential(applicationID: applicationID, credentialID: credential.credentialID) != nil,
                try await store.userProfile(applicationID: applicationID, userID: userID) != nil,
                try await store.enrollmentToken(
                    hash: enrollmentToken.tokenHash, applicationID: applicationID, userID: userID) != nil,
            ]
            for grant in grants {
                let stored = try await store.oauthGrant(
                    kind: grant.kind, handleHash: grant.handleHash, applicationID: applicationID)
                present.append(stored != nil && stored?.consumedAt == nil)
            }
            present.append(
                try await !store.isAnyAccessTokenRevoked(
                    jtis: grants.compactMap(\.family), applicationID: applicationID))
            if present.allSatisfy({ $0 }) { return true }
            // The family's mark stays, by design: it outlives the account.
            return present.dropLast().allSatisfy { !$0 } ? false : nil
        }
    }

    static func deletion(_ account: Account, eventID: String = UUID().uuidString, webhook: Bool = true)
        -> AccountDeletionRecord
    {
        AccountDeletionRecord(
            applicationID: account.applicationID, userID: account.userID, tokensMarkedUntil: Records.time(9000),
            auditEvent: AuditEventRecord(
                id: eventID, occurredAt: Records.time(10), applicationID: account.applicationID,
                action: "user.deleted", actor: "admin", userID: account.userID, clientAddress: "127.0.0.1",
                traceID: "t-delete", details: ["via": .string("admin")]),
            webhook: webhook
                ? WebhookDeliveryRecord(
                    id: UUID().uuidString, applicationID: account.applicationID,
                    body: #"{"type":"user.deleted","userId":"\#(account.userID)"}"#, nextAttemptAt: Records.time(10),
                    createdAt: Records.time(10))
                : nil)
    }

    @Test(
        "an account's rows go in one transaction with its audit event and webhook; another user's and application's stay",
        arguments: Engine.allCases)
    func deletesOneAccount(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: [])
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(other)
            let alice = try await Account.make(store, app.id, "alice", family: "f-alice")
            let bob = try await Account.make(store, app.id, "bob", family: "f-bob")
            let namesake = try await Account.make(store, other.id, "alice", family: "f-other")

            #expect(try await store.deleteAccount(Self.deletion(alice)))

            #expect(try await alice.isWhole(store) == false)
            #expect(
                try await store.consumeChallenge(
                    alice.challenge.challenge, applicationID: app.id, ceremony: alice.challenge.ceremony) == nil)
            #expect(try await store.isAccessTokenRevoked(jti: "f-alice", applicationID: app.id))
            // The email is free for another user of the application.
            _ = try await store.insertUser(Records.user(app.id, "carol"))
            try await store.saveUserProfile(
                UserProfileRecord(
                    applicationID: app.id, userID: "carol", email: "alice@example.com", emailVerified: true,
                    givenName: nil, familyName: nil, phoneNumber: nil, phoneNumberVerified: false,
                    updatedAt: Records.epoch))
            let events = try await store.auditEvents(
                AuditEventFilter(applicationID: app.id, userID: "alice"), after: nil, limit: 10)
            #expect(events.map(\.action) == ["user.deleted"])
            let webhooks = try await store.claimDueWebhooks(
                at: Records.time(20), leaseUntil: Records.time(80), limit: 10)
            #expect(webhooks.map(\.applicationID) == [app.id])

            for kept in [bob, namesake] {
                #expect(try await kept.isWhole(store) == true, "\(kept.applicationID) \(kept.userID)")
                #expect(
                    try await store.consumeChallenge(
                        kept.challenge.challenge, applicationID: kept.applicationID, ceremony: kept.challenge.ceremony)
                        != nil)
            }
            // Gone: a second deletion finds nothing and writes nothing.
            #expect(try await !store.deleteAccount(Self.deletion(alice)))
            let after = try await store.auditEvents(
                AuditEventFilter(applicationID: app.id, userID: "alice"), after: nil, limit: 10)
            #expect(after.count == 1)
        }
    }

    @Test(
        "a step that fails rolls the deletion back: the account stays whole, nothing is marked or written",
        arguments: Engine.allCases)
    func failureLeavesTheAccount(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: [])
            let alice = try await Account.make(store, app.id, "alice", family: "f-alice")
            // The deletion's audit event collides with one already written: its insert, after
            // every delete, fails.
            let taken = Self.deletion(alice).auditEvent
            try await store.insertAuditEvent(taken)

            let failed = await #expect(throws: StoreError.self) {
                _ = try await store.deleteAccount(Self.deletion(alice, eventID: taken.id))
            }
            #expect(failed?.code == .conflict)
            #expect(try await alice.isWhole(store) == true)
            #expect(
                try await store.claimDueWebhooks(at: Records.time(20), leaseUntil: Records.time(80), limit: 10)
                    .isEmpty)
            // The store is usable after the rollback, and the deletion then goes through.
            #expect(try await store.deleteAccount(Self.deletion(alice, webhook: false)))
            #expect(try await alice.isWhole(store) == false)
        }
    }
}
