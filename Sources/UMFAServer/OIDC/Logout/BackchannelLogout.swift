import Crypto
import Foundation
import Logging
import UMFAEncoding
import UMFAStorage
import UMFATokens

/// OpenID Connect Back-Channel Logout 1.0: every client with a `backchannel_logout_uri` that took
/// part in a sign-in hears when it ends. The token endpoint records each such client with the
/// sign-in's session id and user (``record(_:signIn:)``); the end of the session (RP-initiated
/// logout) or of the user's sign-ins (a passkey or account deleted, by anyone) takes those
/// records, exactly once across instances, and queues one logout token per client in the
/// outbox. ``BackchannelLogoutDispatcher`` sends them, never in the request that ended the
/// session, so a slow or failing client delays neither the person nor the other clients.
struct BackchannelLogout: Sendable {
    let store: any LogoutOutboxStore & OAuthGrantStore & OAuthClientStore & ApplicationStore
    let publicURL: String
    /// The key of pairwise subjects (``SubjectIdentifiers``): a logout token's `sub` is its
    /// client's.
    let serverSecret: [UInt8]
    let logger: Logger
    let now: @Sendable () -> Date

    /// The event a logout token carries (§2.4).
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    /// A client that took part in a sign-in.
    struct Participant: Codable, Sendable {
        var clientID: String
        var sessionID: String
        var userID: String
    }

    /// A logout token's claims but its times, which each delivery attempt sets (§2.4); the
    /// `jti` stays, so a client drops a repeat.
    struct PendingClaims: Codable, Sendable {
        var iss: String
        var aud: String
        var sub: String
        var sid: String
        var jti: String
        var events: [String: [String: String]]
    }

    /// Records that `client` took part in `signIn` when it takes logout tokens; kept as long as the
    /// client's refresh tokens may live, and at least as long as an SSO session.
    func record(_ client: OAuthClientRecord, signIn: SignIn) async throws {
        guard client.backchannelLogoutURI != nil else { return }
        let now = self.now()
        let lifetime = max(SSOSessions.lifetime, TimeInterval(client.refreshTokenTTLSeconds))
        let participant = Participant(clientID: client.clientID, sessionID: signIn.sessionID, userID: signIn.userID)
        do {
            try await store.insertOAuthGrant(
                OAuthGrantRecord(
                    kind: .logoutParticipant,
                    handleHash: Array(
                        SHA256.hash(data: Array("logout\u{1}\(signIn.sessionID)\u{1}\(client.clientID)".utf8))),
                    applicationID: client.applicationID, family: signIn.sessionID, subject: signIn.userID,
                    payload: Array(try JSONEncoder().encode(participant)), createdAt: now,
                    expiresAt: now.addingTimeInterval(lifetime), credentialID: signIn.credentialBytes))
        } catch let error as StoreError where error.code == .conflict {
            // Recorded by an earlier code of the same session.
        }
    }

    /// Takes the participants of the session `sessionID` (RP-initiated logout) before it ends, since
    /// ending it ends its records; ``send(_:in:)`` queues their tokens once it has ended.
    func take(sessionID: String, in applicationID: UUID) async -> [OAuthGrantRecord] {
        await take(applicationID, sessionID: sessionID, userID: nil, credentialID: nil)
    }

    /// Takes the participants of `userID`'s sign-ins (of the passkey `credentialID` only, when
    /// given) before they are deleted; ``send(_:in:)`` queues their tokens once the deletion is done.
    func take(userID: String, credentialID: [UInt8]?, in applicationID: UUID) async -> [OAuthGrantRecord] {
        await take(applicationID, sessionID: nil, userID: userID, credentialID: credentialID)
    }

    private func take(_ applicationID: UUID, sessionID: String?, userID: String?, credentialID: [UInt8]?) async
        -> [OAuthGrantRecord]
    {
        do {
            return try await store.takeLogoutParticipants(
                applicationID: applicationID, sessionID: sessionID, subject: userID, credentialID: credentialID,
                at: now())
        } catch {
            logger.error(
                "the clients of ended sign-ins could not be read; they get no logout token",
                metadata: ["error.message": .string("\(error)")])
            return []
        }
    }

    /// Queues the logout tokens of participants taken by ``take(sessionID:in:)`` or
    /// ``take(userID:credentialID:in:)``.
    func send(_ taken: [OAuthGrantRecord], in applicationID: UUID) async {
        do {
            guard !taken.isEmpty, let application = try await store.application(id: applicationID) else { return }
            let issuer = OAuthIssuer(application: application, publicURL: publicURL).issuer
            // The `sub` and `sid` each client knows (pairwise ones: of its sector alone).
            let subjects = SubjectIdentifiers(serverSecret: serverSecret, applicationID: applicationID)
            var deliveries: [LogoutDeliveryRecord] = []
            for record in taken {
                let participant = try JSONDecoder().decode(Participant.self, from: Data(record.payload))
                // A client removed since, or one that no longer takes logout tokens, gets none.
                guard
                    let client = try await store.oauthClient(
                        applicationID: applicationID, clientID: participant.clientID),
                    let uri = client.backchannelLogoutURI
                else { continue }
                let jti = UUID().uuidString.lowercased()
                let claims = PendingClaims(
                    iss: issuer, aud: client.clientID, sub: subjects.subject(of: participant.userID, for: client),
                    sid: subjects.session(participant.sessionID, for: client), jti: jti,
                    events: [Self.event: [:]])
                deliveries.append(
                    LogoutDeliveryRecord(
                        id: jti, applicationID: applicationID, clientID: client.clientID, uri: uri,
                        body: String(decoding: try JSONEncoder().encode(claims), as: UTF8.self), nextAttemptAt: now(),
                        createdAt: now()))
            }
            try await store.enqueueLogoutTokens(deliveries)
        } catch {
            logger.error(
                "logout tokens could not be queued; those clients keep their sessions until they end",
                metadata: ["application_id": .string(applicationID.uuidString), "error.message": .string("\(error)")])
        }
    }
}
