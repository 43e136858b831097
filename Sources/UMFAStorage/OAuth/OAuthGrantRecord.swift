import Foundation

/// What an OAuth handle stands for (docs/contract.md §5). Each is found by the SHA-256 of its
/// secret handle; the handle itself is never stored.
package enum OAuthGrantKind: String, Sendable, CaseIterable {
    /// An authorization request in progress on the hosted pages.
    case interaction
    /// An authorization code.
    case authorizationCode = "code"
    /// A refresh token.
    case refreshToken = "refresh"
    /// An SSO session (the browser's cookie).
    case session
    /// A user's consent to a client (the handle is derived from client and user).
    case consent
    /// A pushed authorization request (RFC 9126 `request_uri`).
    case pushedRequest = "par"
    /// A DPoP proof seen (RFC 9449 §11.1): the handle is its key's thumbprint and its `jti`, so a
    /// replay on any instance finds it.
    case dpopProof = "dpop"
    /// A client assertion seen (RFC 7523 §3 item 7): the handle is the client and its `jti`.
    case clientAssertion = "assertion"
    /// A challenge for a client attestation (App Attest, Android key attestation), used once.
    case attestationChallenge = "attestation_challenge"
    /// A recovery link mailed to a person who lost every passkey (docs/self-service.md): used
    /// once, by registering a new passkey.
    case emailRecovery = "email_recovery"
    /// A device proof seen (docs/contract.md §7): the handle is its credential and its `jti`.
    case deviceProof = "device_proof"
    /// A device authorization (RFC 8628 §3.2): the handle is the device code the device polls
    /// with; the payload holds the person's decision once made.
    case deviceCode = "device_code"
    /// The user code of a device authorization (RFC 8628 §6.1): the handle is the code as typed,
    /// normalised; the payload names its device code. Consumed by the decision.
    case userCode = "user_code"
    /// A CIBA request (OpenID CIBA Core 1.0 §7): the handle is its `auth_req_id`; the payload
    /// names the approval the person answers on their device.
    case cibaRequest = "ciba_request"
    /// The person's decision on a device authorization: the handle is the device code's, and the
    /// poll that consumes it gets the tokens (or `access_denied`) exactly once.
    case deviceDecision = "device_decision"
    /// A client that took part in a sign-in and takes logout tokens (OpenID Connect Back-Channel
    /// Logout 1.0): the family is the sign-in's session id, the subject its user. Taken (consumed)
    /// once, by the end of that session or of the user's sign-ins.
    case logoutParticipant = "logout_participant"
    /// A request object seen (RFC 9101): the handle is the client and its `jti`.
    case requestObject = "request_object"
}

/// One stored OAuth handle: its hash, what it belongs to, and an opaque payload the server
/// reads (JSON). Consumed handles stay until they expire, so a replay can be recognised.
package struct OAuthGrantRecord: Sendable, Equatable {
    /// What the handle stands for.
    package var kind: OAuthGrantKind
    /// SHA-256 of the handle; the primary key together with ``kind``.
    package var handleHash: [UInt8]
    /// The application (issuer) it belongs to.
    package var applicationID: UUID
    /// Grants revoked together (a refresh-token family, a session).
    package var family: String?
    /// The user it belongs to, when known.
    package var subject: String?
    /// The server's data for the grant.
    package var payload: [UInt8]
    /// When it was made.
    package var createdAt: Date
    /// When it stops being usable.
    package var expiresAt: Date
    /// When it was used up or revoked; `nil` while live.
    package var consumedAt: Date?
    /// The passkey whose sign-in the grant stands for (sessions, codes, refresh tokens), so that
    /// deleting it ends the grant; `nil` for other kinds and for grants stored before it was kept.
    package var credentialID: [UInt8]?

    /// Creates a record.
    package init(
        kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, family: String?, subject: String?,
        payload: [UInt8], createdAt: Date, expiresAt: Date, consumedAt: Date? = nil, credentialID: [UInt8]? = nil
    ) {
        self.kind = kind
        self.handleHash = handleHash
        self.applicationID = applicationID
        self.family = family
        self.subject = subject
        self.payload = payload
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.consumedAt = consumedAt
        self.credentialID = credentialID
    }
}

/// Stored OAuth handles, shared by every instance on the database.
package protocol OAuthGrantStore: Sendable {
    /// Adds a grant; ``StoreError/Code/conflict`` when its kind and hash exist.
    func insertOAuthGrant(_ grant: OAuthGrantRecord) async throws
    /// The grant, consumed or not, expired or not; `nil` when absent or another application's.
    func oauthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID) async throws -> OAuthGrantRecord?
    /// Marks a live grant consumed at `now` and returns it as it was, and whether its family was
    /// revoked (``OAuthClientStore/revokeAccessToken(jti:applicationID:expiresAt:)`` with the
    /// family as `jti`) when it was consumed; `nil` when it is absent, consumed or expired. Of
    /// concurrent callers, on any instance, exactly one gets it.
    func consumeOAuthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, at now: Date)
        async throws -> (record: OAuthGrantRecord, familyRevoked: Bool)?
    /// Rotates a live grant (a refresh token, RFC 6749 §6, OAuth 2.0 Security BCP §4.14.2):
    /// consumes it as ``consumeOAuthGrant(kind:handleHash:applicationID:at:)`` does and, all or
    /// nothing with that, stores its successor under `successorHash` unless its family was
    /// revoked: a copy of it (kind, family, subject, payload, expiry and passkey) created at
    /// `now`. Reads beside it what issuing the successor's tokens checks: the owner of the
    /// grant's passkey and the profile of its subject (``OAuthGrantRotation``).
    ///
    /// `nil` when the grant is absent, consumed or expired; then nothing is stored. Of
    /// concurrent callers, on any instance, exactly one gets it. On PostgreSQL one statement.
    func rotateOAuthGrant(
        kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, successorHash: [UInt8], at now: Date
    ) async throws -> OAuthGrantRotation?
    /// Replaces payload, subject and expiry of a live grant; `false` when it is not live.
    func updateOAuthGrant(
        kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID, payload: [UInt8], subject: String?,
        expiresAt: Date, now: Date
    ) async throws -> Bool
    /// Marks every live grant of the family consumed at `now`; returns how many.
    func revokeOAuthGrantFamily(applicationID: UUID, family: String, at now: Date) async throws -> Int
    /// Removes a grant; `false` when there was none.
    func deleteOAuthGrant(kind: OAuthGrantKind, handleHash: [UInt8], applicationID: UUID) async throws -> Bool
    /// Ends what a passkey signed in (`credentialID`), or with `credentialID` `nil` everything of
    /// the user `subject`: first every family of their grants, consumed or not, is marked revoked
    /// until `markedUntil` (as ``OAuthClientStore/revokeAccessToken(jti:applicationID:expiresAt:)``
    /// with the family as `jti`, which ends the family's access tokens and refresh tokens issued
    /// into it later), then their live grants are consumed at `now`.
    func revokeOAuthGrants(
        applicationID: UUID, subject: String, credentialID: [UInt8]?, at now: Date, markedUntil: Date
    ) async throws -> OAuthGrantRevocation
}
