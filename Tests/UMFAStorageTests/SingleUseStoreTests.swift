import Foundation
import Testing
import UMFAStorage

@Suite("Storage: challenges and enrollment tokens")
struct SingleUseStoreTests {
    @Test("a challenge is consumed once, only by its application and ceremony", arguments: Engine.allCases)
    func challengeOnce(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let other = try await Records.seed(store)
            let challenge = Records.challenge(app.id)
            let discoverable = Records.challenge(app.id, user: nil, ceremony: .registration)
            try await store.insertChallenge(challenge)
            try await store.insertChallenge(discoverable)

            #expect(
                try await store.consumeChallenge(
                    challenge.challenge, applicationID: other.id, ceremony: .authentication)
                    == nil, "another application")
            #expect(
                try await store.consumeChallenge(challenge.challenge, applicationID: app.id, ceremony: .registration)
                    == nil, "another ceremony")
            #expect(
                try await store.consumeChallenge(Records.bytes(32), applicationID: app.id, ceremony: .authentication)
                    == nil)
            #expect(
                try await store.consumeChallenge(challenge.challenge, applicationID: app.id, ceremony: .authentication)
                    == challenge, "the refused attempts left it in place")
            #expect(
                try await store.consumeChallenge(challenge.challenge, applicationID: app.id, ceremony: .authentication)
                    == nil, "consumed")
            #expect(
                try await store.consumeChallenge(discoverable.challenge, applicationID: app.id, ceremony: .registration)
                    == discoverable)

            let live = Records.challenge(app.id)
            try await store.insertChallenge(live)
            let duplicate = await #expect(throws: StoreError.self) { try await store.insertChallenge(live) }
            #expect(duplicate?.code == .conflict)
        }
    }

    @Test(
        "a challenge keeps its allowCredentials, registration grant and enrollment token hash",
        arguments: Engine.allCases)
    func challengeKeepsWhatItWasIssuedWith(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            var assertion = Records.challenge(app.id)
            assertion.allowCredentials = [Records.bytes(16), Records.bytes(32)]
            var registration = Records.challenge(app.id, ceremony: .registration)
            registration.grant = .enrollmentToken
            registration.enrollmentTokenHash = Records.bytes(32)
            var open = Records.challenge(app.id, ceremony: .registration)
            open.grant = .openFirstEnrollment
            for challenge in [assertion, registration, open] { try await store.insertChallenge(challenge) }
            #expect(
                try await store.consumeChallenge(assertion.challenge, applicationID: app.id, ceremony: .authentication)
                    == assertion)
            #expect(
                try await store.consumeChallenge(
                    registration.challenge, applicationID: app.id, ceremony: .registration) == registration)
            #expect(
                try await store.consumeChallenge(open.challenge, applicationID: app.id, ceremony: .registration)
                    == open)
        }
    }

    @Test("20 concurrent consumers of one challenge: exactly one gets it", arguments: Engine.allCases)
    func concurrentConsume(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            for _ in 0..<3 {
                let challenge = Records.challenge(app.id)
                try await store.insertChallenge(challenge)
                let winners = try await withThrowingTaskGroup(of: ChallengeRecord?.self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            try await store.consumeChallenge(
                                challenge.challenge, applicationID: app.id, ceremony: .authentication)
                        }
                    }
                    return try await group.compactMap { $0 }.reduce(into: [ChallengeRecord]()) { $0.append($1) }
                }
                #expect(winners == [challenge])
            }
        }
    }

    @Test("two stores on one database: a challenge is consumed by exactly one", arguments: Engine.allCases)
    func concurrentConsumeAcrossStores(engine: Engine) async throws {
        try await OpenedStores.with(engine) { stores in
            let first = try await stores.open()
            let second = try await stores.open()
            let app = try await Records.seed(first)
            for _ in 0..<3 {
                let challenge = Records.challenge(app.id)
                try await second.insertChallenge(challenge)
                let winners = try await withThrowingTaskGroup(of: ChallengeRecord?.self) { group in
                    for index in 0..<20 {
                        let store = index.isMultiple(of: 2) ? first : second
                        group.addTask {
                            try await store.consumeChallenge(
                                challenge.challenge, applicationID: app.id, ceremony: .authentication)
                        }
                    }
                    return try await group.compactMap { $0 }.reduce(into: [ChallengeRecord]()) { $0.append($1) }
                }
                #expect(winners == [challenge])
            }
        }
    }

    @Test("an enrollment token is consumed once, only for its application and user", arguments: Engine.allCases)
    func enrollmentToken(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let other = try await Records.seed(store)
            let token = Records.enrollmentToken(app.id, user: "alice")
            try await store.insertEnrollmentToken(token)

            #expect(
                try await store.enrollmentToken(hash: token.tokenHash, applicationID: app.id, userID: "alice")
                    == token, "reading does not spend it")
            #expect(
                try await store.enrollmentToken(hash: token.tokenHash, applicationID: app.id, userID: "mallory") == nil)
            #expect(
                try await store.consumeEnrollmentToken(hash: token.tokenHash, applicationID: app.id, userID: "mallory")
                    == nil, "another user")
            #expect(
                try await store.consumeEnrollmentToken(hash: token.tokenHash, applicationID: other.id, userID: "alice")
                    == nil, "another application")
            #expect(
                try await store.consumeEnrollmentToken(hash: Records.bytes(32), applicationID: app.id, userID: "alice")
                    == nil)
            #expect(
                try await store.consumeEnrollmentToken(hash: token.tokenHash, applicationID: app.id, userID: "alice")
                    == token, "the refused attempts left it in place")
            #expect(
                try await store.consumeEnrollmentToken(hash: token.tokenHash, applicationID: app.id, userID: "alice")
                    == nil, "consumed")

            let noPasswordTime = EnrollmentTokenRecord(
                tokenHash: Records.bytes(32), applicationID: app.id, userID: "bob", userpwTime: nil,
                expiresAt: Records.time(60))
            try await store.insertEnrollmentToken(noPasswordTime)
            #expect(
                try await store.consumeEnrollmentToken(
                    hash: noPasswordTime.tokenHash, applicationID: app.id, userID: "bob") == noPasswordTime)
        }
    }

    @Test("purgeExpired removes what expired before the date and keeps the rest", arguments: Engine.allCases)
    func purge(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store)
            let now = Records.time(1000)
            let oldChallenge = Records.challenge(app.id, expiresAt: Records.time(999.999))
            let edgeChallenge = Records.challenge(app.id, expiresAt: now)
            let liveChallenge = Records.challenge(app.id, expiresAt: Records.time(1300))
            let oldToken = Records.enrollmentToken(app.id, user: "alice", expiresAt: Records.time(10))
            let liveToken = Records.enrollmentToken(app.id, user: "alice", expiresAt: Records.time(1001))
            for challenge in [oldChallenge, edgeChallenge, liveChallenge] { try await store.insertChallenge(challenge) }
            for token in [oldToken, liveToken] { try await store.insertEnrollmentToken(token) }

            try await store.purgeExpired(before: now)

            func consume(_ challenge: ChallengeRecord) async throws -> ChallengeRecord? {
                try await store.consumeChallenge(challenge.challenge, applicationID: app.id, ceremony: .authentication)
            }
            #expect(try await consume(oldChallenge) == nil)
            #expect(try await consume(edgeChallenge) == edgeChallenge, "expiring exactly now is not before now")
            #expect(try await consume(liveChallenge) == liveChallenge)
            #expect(
                try await store.consumeEnrollmentToken(hash: oldToken.tokenHash, applicationID: app.id, userID: "alice")
                    == nil)
            #expect(
                try await store.consumeEnrollmentToken(
                    hash: liveToken.tokenHash, applicationID: app.id, userID: "alice")
                    == liveToken)
        }
    }
}
