import Foundation
import Testing
import UMFAStorage

/// Refresh-token rotation in the store (RFC 6749 §6, RFC 9700 §4.14.2): the grant consumed and
/// its successor stored all or nothing, with what issuing checks read beside them, on both engines.
@Suite("Storage: OAuth grant rotation")
struct OAuthGrantRotationStoreTests {
    /// A refresh grant of `subject`'s sign-in with `credentialID`.
    static func grant(
        _ applicationID: UUID, family: String = "f-\(UUID().uuidString)", subject: String = "alice",
        credentialID: [UInt8]?, expiresAt: Date = Records.time(3600)
    ) -> OAuthGrantRecord {
        OAuthGrantRecord(
            kind: .refreshToken, handleHash: Records.bytes(32), applicationID: applicationID, family: family,
            subject: subject, payload: Array(#"{"family":"\#(family)"}"#.utf8), createdAt: Records.epoch,
            expiresAt: expiresAt, credentialID: credentialID)
    }

    static func profile(_ applicationID: UUID, _ userID: String) -> UserProfileRecord {
        UserProfileRecord(
            applicationID: applicationID, userID: userID, email: "\(userID)@example.com", emailVerified: true,
            givenName: "Alice", familyName: nil, phoneNumber: "+33 1 23 45 67 89", phoneNumberVerified: false,
            updatedAt: Records.time(5))
    }

    @Test(
        "rotating consumes the grant, stores its copy, and reads its passkey's owner and its subject's profile",
        arguments: Engine.allCases)
    func rotates(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let passkey = Records.credential(app.id, "alice")
            try await store.insertCredential(passkey)
            let profile = Self.profile(app.id, "alice")
            try await store.saveUserProfile(profile)
            let grant = Self.grant(app.id, credentialID: passkey.credentialID)
            try await store.insertOAuthGrant(grant)

            let now = Records.time(10)
            let successor = Records.bytes(32)
            let rotation = try #require(
                try await store.rotateOAuthGrant(
                    kind: .refreshToken, handleHash: grant.handleHash, applicationID: app.id, successorHash: successor,
                    at: now))
            #expect(
                rotation
                    == OAuthGrantRotation(
                        record: grant, familyRevoked: false, successorStored: true, credentialOwner: "alice",
                        subjectProfile: profile))
            let spent = try #require(
                try await store.oauthGrant(kind: .refreshToken, handleHash: grant.handleHash, applicationID: app.id))
            #expect(spent.consumedAt == now)
            var copy = grant
            copy.handleHash = successor
            copy.createdAt = now
            #expect(
                try await store.oauthGrant(kind: .refreshToken, handleHash: successor, applicationID: app.id) == copy)

            // Spent: a second rotation gets nothing and stores nothing.
            let second = Records.bytes(32)
            #expect(
                try await store.rotateOAuthGrant(
                    kind: .refreshToken, handleHash: grant.handleHash, applicationID: app.id, successorHash: second,
                    at: now) == nil)
            #expect(try await store.oauthGrant(kind: .refreshToken, handleHash: second, applicationID: app.id) == nil)

            // The successor rotates in turn.
            let third = Records.bytes(32)
            let next = try #require(
                try await store.rotateOAuthGrant(
                    kind: .refreshToken, handleHash: successor, applicationID: app.id, successorHash: third,
                    at: Records.time(20)))
            #expect(next.record == copy)
            #expect(next.successorStored)
        }
    }

    @Test(
        "a deleted passkey, another user's passkey and a missing profile read as such; a grant without a passkey reads none",
        arguments: Engine.allCases)
    func readsWhatIsThere(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let bobs = Records.credential(app.id, "bob")
            let deleted = Records.credential(app.id, "alice")
            for credential in [bobs, deleted] { try await store.insertCredential(credential) }
            #expect(
                try await store.deleteCredential(
                    applicationID: app.id, userID: "alice", credentialID: deleted.credentialID))
            try await store.saveUserProfile(Self.profile(app.id, "bob"))

            let cases: [(OAuthGrantRecord, owner: String?)] = [
                (Self.grant(app.id, credentialID: deleted.credentialID), nil),
                (Self.grant(app.id, credentialID: bobs.credentialID), "bob"),
                (Self.grant(app.id, credentialID: nil), nil),
            ]
            for (grant, owner) in cases {
                try await store.insertOAuthGrant(grant)
                let rotation = try #require(
                    try await store.rotateOAuthGrant(
                        kind: .refreshToken, handleHash: grant.handleHash, applicationID: app.id,
                        successorHash: Records.bytes(32), at: Records.time(10)))
                #expect(rotation.credentialOwner == owner)
                #expect(rotation.subjectProfile == nil, "alice has no profile")
                #expect(rotation.successorStored)
            }
        }
    }

    @Test(
        "an expired grant, another application's, another kind's or an unknown one is not rotated and stores nothing",
        arguments: Engine.allCases)
    func refusesWhatIsNotLive(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(other)
            let expired = Self.grant(app.id, credentialID: nil, expiresAt: Records.time(10))
            let live = Self.grant(app.id, credentialID: nil)
            for grant in [expired, live] { try await store.insertOAuthGrant(grant) }

            for (kind, hash, applicationID) in [
                (OAuthGrantKind.refreshToken, expired.handleHash, app.id), (.refreshToken, live.handleHash, other.id),
                (.authorizationCode, live.handleHash, app.id), (.refreshToken, Records.bytes(32), app.id),
            ] {
                let successor = Records.bytes(32)
                #expect(
                    try await store.rotateOAuthGrant(
                        kind: kind, handleHash: hash, applicationID: applicationID, successorHash: successor,
                        at: Records.time(10)) == nil)
                #expect(
                    try await store.oauthGrant(kind: kind, handleHash: successor, applicationID: applicationID) == nil)
            }
            #expect(
                try await store.oauthGrant(kind: .refreshToken, handleHash: live.handleHash, applicationID: app.id)?
                    .consumedAt == nil, "the refused attempts left it live")
        }
    }

    @Test(
        "a revoked family's grant is consumed without a successor; revoking a family ends a successor; a spent grant stays recognisable",
        arguments: Engine.allCases)
    func familyRevocation(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let revoked = Self.grant(app.id, family: "f-revoked", credentialID: nil)
            let live = Self.grant(app.id, family: "f-live", credentialID: nil)
            for grant in [revoked, live] { try await store.insertOAuthGrant(grant) }
            try await store.revokeAccessToken(jti: "f-revoked", applicationID: app.id, expiresAt: Records.time(7200))

            let now = Records.time(10)
            let refused = Records.bytes(32)
            let rotation = try #require(
                try await store.rotateOAuthGrant(
                    kind: .refreshToken, handleHash: revoked.handleHash, applicationID: app.id, successorHash: refused,
                    at: now))
            #expect(rotation.familyRevoked)
            #expect(!rotation.successorStored)
            #expect(try await store.oauthGrant(kind: .refreshToken, handleHash: refused, applicationID: app.id) == nil)
            #expect(
                try await store.oauthGrant(kind: .refreshToken, handleHash: revoked.handleHash, applicationID: app.id)?
                    .consumedAt == now)

            // Reuse: the spent grant rotates no more and is still there, consumed, for the
            // server to recognise; revoking its family ends the successor.
            let successor = Records.bytes(32)
            #expect(
                try await store.rotateOAuthGrant(
                    kind: .refreshToken, handleHash: live.handleHash, applicationID: app.id, successorHash: successor,
                    at: now)?.successorStored == true)
            #expect(
                try await store.rotateOAuthGrant(
                    kind: .refreshToken, handleHash: live.handleHash, applicationID: app.id,
                    successorHash: Records.bytes(32), at: now) == nil)
            #expect(
                try await store.oauthGrant(kind: .refreshToken, handleHash: live.handleHash, applicationID: app.id)?
                    .consumedAt == now)
            #expect(try await store.revokeOAuthGrantFamily(applicationID: app.id, family: "f-live", at: now) == 1)
            #expect(
                try await store.rotateOAuthGrant(
                    kind: .refreshToken, handleHash: successor, applicationID: app.id,
                    successorHash: Records.bytes(32), at: now) == nil)
        }
    }

    @Test(
        "concurrent rotations of one grant on two stores (instances): exactly one wins and one successor is stored",
        arguments: Engine.allCases)
    func concurrentRotation(engine: Engine) async throws {
        try await OpenedStores.with(engine) { opened in
            let first = try await opened.open()
            let second = try await opened.open()
            let app = try await Records.seed(first)
            for _ in 0..<5 {
                let grant = Self.grant(app.id, credentialID: nil)
                try await first.insertOAuthGrant(grant)
                let successors = (0..<8).map { _ in Records.bytes(32) }
                let winners = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                    for (index, successor) in successors.enumerated() {
                        let store = index.isMultiple(of: 2) ? first : second
                        group.addTask {
                            try await store.rotateOAuthGrant(
                                kind: .refreshToken, handleHash: grant.handleHash, applicationID: app.id,
                                successorHash: successor, at: Records.time(10))?.successorStored == true
                                ? successor : nil
                        }
                    }
                    return try await group.reduce(into: [[UInt8]]()) { winners, winner in
                        if let winner { winners.append(winner) }
                    }
                }
                #expect(winners.count == 1)
                var stored: [[UInt8]] = []
                for successor in successors {
                    if try await first.oauthGrant(kind: .refreshToken, handleHash: successor, applicationID: app.id)
                        != nil
                    {
                        stored.append(successor)
                    }
                }
                #expect(stored == winners)
            }
        }
    }
}
