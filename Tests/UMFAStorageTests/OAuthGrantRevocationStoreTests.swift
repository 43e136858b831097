import Foundation
import Testing
import UMFAStorage

/// Ending what a passkey or a user signed in (docs/contract.md §4): the store finds sessions, codes
/// and refresh tokens by the credential recorded with them, marks their families and consumes
/// the live ones, on both engines, and touches nothing of another passkey, user or application.
struct OAuthGrantRevocationStoreTests {
    static func grant(
        _ applicationID: UUID, _ kind: OAuthGrantKind, family: String?, subject: String = "alice",
        credential: [UInt8]?, consumedAt: Date? = nil
    ) -> OAuthGrantRecord {
        OAuthGrantRecord(
            kind: kind, handleHash: Records.bytes(32), applicationID: applicationID, family: family, subject: subject,
            payload: Array("{}".utf8), createdAt: Records.epoch, expiresAt: Records.time(3600), consumedAt: consumedAt,
            credentialID: credential)
    }

    @Test("the credential is stored with the grant and read back", arguments: Engine.allCases)
    func credentialRoundTrips(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let with = Self.grant(app.id, .session, family: "s1", credential: [1, 2, 3])
            let without = Self.grant(app.id, .consent, family: nil, credential: nil)
            for grant in [with, without] { try await store.insertOAuthGrant(grant) }
            #expect(
                try await store.oauthGrant(kind: .session, handleHash: with.handleHash, applicationID: app.id) == with)
            #expect(
                try await store.oauthGrant(kind: .consent, handleHash: without.handleHash, applicationID: app.id)
                    == without)
        }
    }

    @Test(
        "a passkey's sessions, codes and refresh families end, with their families marked; nothing else does",
        arguments: Engine.allCases)
    func revokesByCredential(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let other = Records.application(createdAt: Records.time(1))
            try await store.insertApplication(other)
            let (passkey, kept) = (Records.bytes(32), Records.bytes(32))
            let now = Records.time(10)
            let ended = [
                Self.grant(app.id, .session, family: "sid-1", credential: passkey),
                Self.grant(app.id, .refreshToken, family: "f-1", credential: passkey),
                Self.grant(app.id, .refreshToken, family: "f-2", credential: passkey),
                Self.grant(app.id, .authorizationCode, family: "f-3", credential: passkey),
            ]
            // A spent code: nothing to consume, but its family (with live access tokens) is marked.
            let spent = Self.grant(
                app.id, .authorizationCode, family: "f-4", credential: passkey, consumedAt: Records.time(5))
            let untouched = [
                Self.grant(app.id, .session, family: "sid-2", credential: kept),
                Self.grant(app.id, .refreshToken, family: "f-5", credential: kept),
                Self.grant(app.id, .refreshToken, family: "f-6", subject: "bob", credential: passkey),
                Self.grant(other.id, .refreshToken, family: "f-7", credential: passkey),
            ]
            for grant in ended + [spent] + untouched { try await store.insertOAuthGrant(grant) }

            let revoked = try await store.revokeOAuthGrants(
                applicationID: app.id, subject: "alice", credentialID: passkey, at: now, markedUntil: Records.time(9000)
            )
            #expect(revoked == OAuthGrantRevocation(sessions: 1, refreshFamilies: 2, codes: 1, familiesMarked: 5))
            for grant in ended {
                let stored = try #require(
                    try await store.oauthGrant(kind: grant.kind, handleHash: grant.handleHash, applicationID: app.id))
                #expect(stored.consumedAt == now, "\(grant.family ?? "")")
            }
            for family in ["sid-1", "f-1", "f-2", "f-3", "f-4"] {
                #expect(try await store.isAccessTokenRevoked(jti: family, applicationID: app.id), "\(family)")
            }
            for grant in untouched {
                let stored = try #require(
                    try await store.oauthGrant(
                        kind: grant.kind, handleHash: grant.handleHash, applicationID: grant.applicationID))
                #expect(stored.consumedAt == nil, "\(grant.family ?? "")")
                #expect(
                    try await !store.isAnyAccessTokenRevoked(
                        jtis: [grant.family ?? ""], applicationID: grant.applicationID))
            }
            // Again: nothing is left to end, and the marks are not doubled.
            let again = try await store.revokeOAuthGrants(
                applicationID: app.id, subject: "alice", credentialID: passkey, at: now, markedUntil: Records.time(9000)
            )
            #expect(again == OAuthGrantRevocation())
        }
    }

    @Test(
        "sign-ins stored before their passkey was recorded end when any of the user's passkeys is deleted; consents stay",
        arguments: Engine.allCases)
    func revokesUnrecordedSignIns(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let now = Records.time(10)
            let unrecorded = [
                Self.grant(app.id, .session, family: "sid-old", credential: nil),
                Self.grant(app.id, .refreshToken, family: "f-old", credential: nil),
                Self.grant(app.id, .authorizationCode, family: "f-code", credential: nil),
            ]
            let kept = [
                Self.grant(app.id, .consent, family: nil, credential: nil),
                Self.grant(app.id, .refreshToken, family: "f-bob", subject: "bob", credential: nil),
            ]
            for grant in unrecorded + kept { try await store.insertOAuthGrant(grant) }
            let revoked = try await store.revokeOAuthGrants(
                applicationID: app.id, subject: "alice", credentialID: Records.bytes(32), at: now,
                markedUntil: Records.time(9000))
            #expect(revoked == OAuthGrantRevocation(sessions: 1, refreshFamilies: 1, codes: 1, familiesMarked: 3))
            for grant in unrecorded {
                let stored = try await store.oauthGrant(
                    kind: grant.kind, handleHash: grant.handleHash, applicationID: app.id)
                #expect(stored?.consumedAt == now, "\(grant.kind)")
            }
            for grant in kept {
                let stored = try await store.oauthGrant(
                    kind: grant.kind, handleHash: grant.handleHash, applicationID: app.id)
                #expect(stored?.consumedAt == nil, "\(grant.kind) \(grant.subject ?? "")")
            }
        }
    }

    @Test("a user's grants of every passkey (and those stored without one) end together", arguments: Engine.allCases)
    func revokesByUser(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice", "bob"])
            let now = Records.time(10)
            let alices = [
                Self.grant(app.id, .session, family: "sid-1", credential: Records.bytes(32)),
                Self.grant(app.id, .refreshToken, family: "f-1", credential: Records.bytes(32)),
                Self.grant(app.id, .refreshToken, family: "f-2", credential: nil),
                Self.grant(app.id, .consent, family: nil, credential: nil),
            ]
            let bobs = Self.grant(app.id, .refreshToken, family: "f-3", subject: "bob", credential: nil)
            for grant in alices + [bobs] { try await store.insertOAuthGrant(grant) }
            let revoked = try await store.revokeOAuthGrants(
                applicationID: app.id, subject: "alice", credentialID: nil, at: now, markedUntil: Records.time(9000))
            #expect(revoked == OAuthGrantRevocation(sessions: 1, refreshFamilies: 2, codes: 0, familiesMarked: 3))
            for grant in alices {
                let stored = try await store.oauthGrant(
                    kind: grant.kind, handleHash: grant.handleHash, applicationID: app.id)
                #expect(stored?.consumedAt == now)
            }
            let bob = try await store.oauthGrant(
                kind: .refreshToken, handleHash: bobs.handleHash, applicationID: app.id)
            #expect(bob?.consumedAt == nil)
            #expect(try await !store.isAccessTokenRevoked(jti: "f-3", applicationID: app.id))
        }
    }
}
