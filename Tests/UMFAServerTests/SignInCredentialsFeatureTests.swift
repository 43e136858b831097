import Foundation
import Testing
import UMFAEncoding
import UMFAStorage

@testable import UMFAServer

/// ``SignInCredentials`` built from its ports alone (a SQLite file and the audit log): deleting a
/// passkey ends exactly what it signed in, and every use checks it is still the user's
/// (docs/contract.md §4). No server.
@Suite("Sign-in credentials from their ports: a deleted passkey's sign-ins end, others stay")
struct SignInCredentialsFeatureTests {
    /// What one passkey signed in: an SSO session, a refresh token and a code.
    struct Signed {
        let passkey: [UInt8]
        let signIn: SignIn
        let session: String
        let refreshToken: String
        let code: String
        let family: String
    }

    static func signInEverything(_ user: String, _ ports: FeaturePorts, grants: OAuthGrants) async throws -> Signed {
        let passkey = try await ports.addPasskey(for: user)
        let signIn = ports.signIn(user, passkey: passkey)
        let family = "f" + Base64URL.encode(Secrets.randomBytes(16))
        let session = try await grants.create(
            .session, signIn, lifetime: 3600, family: signIn.sessionID, subject: user, credentialID: passkey)
        let refresh = try await grants.create(
            .refreshToken, signIn, lifetime: 3600, family: family, subject: user, credentialID: passkey)
        let code = try await grants.create(
            .authorizationCode, signIn, lifetime: 60, family: family, subject: user, credentialID: passkey)
        return Signed(
            passkey: passkey, signIn: signIn, session: session, refreshToken: refresh, code: code, family: family)
    }

    static func isLive(_ signed: Signed, _ grants: OAuthGrants) async throws -> [Bool] {
        [
            try await grants.live(.session, signed.session, as: SignIn.self) != nil,
            try await grants.live(.refreshToken, signed.refreshToken, as: SignIn.self) != nil,
            try await grants.live(.authorizationCode, signed.code, as: SignIn.self) != nil,
        ]
    }

    @Test("revoking one passkey ends its session, refresh family and code, not those of the user's other passkey")
    func revokesThatPasskeyOnly() async throws {
        try await FeaturePorts.with { ports in
            let grants = OAuthGrants(store: ports.store, now: ports.now, issuer: ports.issuer)
            let phone = try await Self.signInEverything("alice", ports, grants: grants)
            let laptop = try await Self.signInEverything("alice", ports, grants: grants)
            await ports.signIns.revoke(
                in: ports.application.id, userID: "alice", credentialID: phone.passkey, actor: .user("alice"),
                caller: ports.caller, via: "self_service")
            #expect(try await Self.isLive(phone, grants) == [false, false, false])
            #expect(try await Self.isLive(laptop, grants) == [true, true, true])
            // The access tokens of the family end with it (their jti starts with the family).
            #expect(try await grants.isFamilyRevoked(phone.family))
            #expect(try await !grants.isFamilyRevoked(laptop.family))

            let events = try await ports.events(.sessionsRevoked)
            #expect(events.count == 1)
            #expect(events.first?.credentialID == Base64URL.encode(phone.passkey))
            #expect(events.first?.details["reason"] == .string("credential_deleted"))
            #expect(events.first?.details["via"] == .string("self_service"))
            #expect(events.first?.details["sessions"] == .number(1))
            #expect(events.first?.details["refresh_families"] == .number(1))
            #expect(events.first?.details["codes"] == .number(1))
        }
    }

    @Test("revoking a user (no passkey named) ends all of that user's sign-ins and none of another user's")
    func revokesTheUser() async throws {
        try await FeaturePorts.with { ports in
            let grants = OAuthGrants(store: ports.store, now: ports.now, issuer: ports.issuer)
            let first = try await Self.signInEverything("alice", ports, grants: grants)
            let second = try await Self.signInEverything("alice", ports, grants: grants)
            let bob = try await Self.signInEverything("bob", ports, grants: grants)
            await ports.signIns.revoke(
                in: ports.application.id, userID: "alice", credentialID: nil, actor: .admin, caller: ports.caller,
                via: "admin")
            #expect(try await Self.isLive(first, grants) == [false, false, false])
            #expect(try await Self.isLive(second, grants) == [false, false, false])
            #expect(try await Self.isLive(bob, grants) == [true, true, true])
            #expect(try await ports.events(.sessionsRevoked).first?.details["reason"] == .string("user_deleted"))
        }
    }

    @Test("a passkey that signed nothing in revokes nothing and records nothing")
    func nothingToRecord() async throws {
        try await FeaturePorts.with { ports in
            let passkey = try await ports.addPasskey(for: "alice")
            await ports.signIns.revoke(
                in: ports.application.id, userID: "alice", credentialID: passkey, actor: .user("alice"),
                caller: ports.caller, via: "self_service")
            #expect(try await ports.events(.sessionsRevoked).isEmpty)
        }
    }

    @Test("a sign-in counts only while its passkey is registered to its user, byte for byte")
    func isRegistered() async throws {
        try await FeaturePorts.with { ports in
            let signIns = ports.signIns
            let id = ports.application.id
            let passkey = try await ports.addPasskey(for: "alice")
            #expect(try await signIns.isRegistered(ports.signIn("alice", passkey: passkey), in: id))
            // Another user naming alice's passkey, and a Unicode-equal but different user id.
            #expect(try await !signIns.isRegistered(ports.signIn("bob", passkey: passkey), in: id))
            let composed = try await ports.addPasskey(for: "caf\u{E9}")
            #expect(try await !signIns.isRegistered(ports.signIn("cafe\u{301}", passkey: composed), in: id))
            // A sign-in stored before its passkey was recorded: any passkey of the user.
            #expect(try await signIns.isRegistered(credentialID: nil, userID: "alice", in: id))
            #expect(try await !signIns.isRegistered(credentialID: nil, userID: "mallory", in: id))

            #expect(try await ports.store.deleteCredential(applicationID: id, userID: "alice", credentialID: passkey))
            #expect(try await !signIns.isRegistered(ports.signIn("alice", passkey: passkey), in: id))
            #expect(try await !signIns.isRegistered(credentialID: nil, userID: "alice", in: id))
        }
    }
}
