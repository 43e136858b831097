import Foundation
import Logging
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// What a passkey signed in lives only as long as the passkey: an SSO session, the codes and
/// refresh-token families it issued, and their access tokens end when the passkey is deleted
/// (self-service, unenroll, the backend's API key, the admin) or its user is, as a login token
/// does (docs/contract.md §4).
///
/// Two halves, so that neither alone must be perfect: a deletion revokes what the store finds
/// recorded with the passkey (``revoke(in:userID:credentialID:actor:caller:via:)``), and every use
/// checks that the passkey is still registered to the user (``isRegistered(_:in:)``): a session
/// being reused, a code or refresh token being redeemed, an access token at userinfo or
/// introspection (its `credential_id` claim).
struct SignInCredentials: Sendable {
    /// The stores a sign-in is checked and ended in.
    typealias Store = CredentialStore & OAuthGrantStore

    let store: any Store
    let audit: AuditLog
    /// Tells the clients of the sign-ins that end (OpenID Connect Back-Channel Logout 1.0).
    let backchannel: BackchannelLogout
    let logger: Logger
    let now: @Sendable () -> Date

    /// How long a revoked refresh-token family stays marked: long enough for any access token
    /// or refresh token of it to have expired.
    static var familyMarkLifetime: TimeInterval {
        TimeInterval(
            max(OAuthClientSettings.refreshTokenTTL.upperBound, OAuthClientSettings.accessTokenTTL.upperBound))
    }

    /// Whether the passkey that made `signIn` is still registered to its user.
    func isRegistered(_ signIn: SignIn, in applicationID: UUID) async throws -> Bool {
        try await isRegistered(credentialID: signIn.credentialID, userID: signIn.userID, in: applicationID)
    }

    /// Whether `credentialID` (base64url) is still registered to `userID`. Without one (a
    /// sign-in stored before the credential was recorded), whether the user still has a passkey.
    func isRegistered(credentialID: String?, userID: String, in applicationID: UUID) async throws -> Bool {
        guard let credentialID else {
            return try await !store.credentials(applicationID: applicationID, userID: userID).isEmpty
        }
        guard let bytes = Base64URL.decodeCanonical(credentialID),
            let credential = try await store.credential(applicationID: applicationID, credentialID: bytes)
        else { return false }
        return credential.userID.isSameBytes(as: userID)
    }

    /// After a deletion: ends the SSO sessions, codes and refresh-token families (with their
    /// access tokens) that `credentialID` signed in, or with `nil` everything of `userID`, and
    /// records `sessions.revoked` with what ended, when anything did. A store failure here is
    /// logged, not thrown: the deletion is done, and the checks at every use refuse what could
    /// not be revoked.
    func revoke(
        in applicationID: UUID, userID: String, credentialID: [UInt8]?, actor: AuditActor, caller: Caller, via: String
    ) async {
        // The clients that took part are taken before their records end with the rest, and told
        // whatever the revocation comes to: the passkey is gone, so signing them out is right.
        let participants = await backchannel.take(userID: userID, credentialID: credentialID, in: applicationID)
        await revokeGrants(
            in: applicationID, userID: userID, credentialID: credentialID, actor: actor, caller: caller, via: via)
        await backchannel.send(participants, in: applicationID)
    }

    /// The store's half of ``revoke(in:userID:credentialID:actor:caller:via:)``, and its audit event.
    private func revokeGrants(
        in applicationID: UUID, userID: String, credentialID: [UInt8]?, actor: AuditActor, caller: Caller, via: String
    ) async {
        let now = self.now()
        do {
            let revoked = try await store.revokeOAuthGrants(
                applicationID: applicationID, subject: userID, credentialID: credentialID, at: now,
                markedUntil: now.addingTimeInterval(Self.familyMarkLifetime))
            // Nothing signed in with it (a passkey used only on the device routes): nothing to record.
            guard revoked != OAuthGrantRevocation() else { return }
            await audit.record(
                .sessionsRevoked, application: applicationID, actor: actor, userID: userID, credentialID: credentialID,
                caller: caller,
                details: [
                    "reason": .string(credentialID == nil ? "user_deleted" : "credential_deleted"),
                    "via": .string(via), "sessions": .number(Double(revoked.sessions)),
                    "refresh_families": .number(Double(revoked.refreshFamilies)),
                    "codes": .number(Double(revoked.codes)),
                ])
        } catch {
            logger.error(
                "the sign-ins of a deleted passkey were not revoked; each use still refuses them",
                metadata: ["trace.id": .string(caller.traceID), "error.message": .string("\(error)")])
        }
    }
}
