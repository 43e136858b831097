import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// The issuer's handles that stand for something stored: interactions, codes, refresh tokens,
/// sessions, consents. A handle is 256 random bits shown once; the store keeps its SHA-256 and a
/// JSON payload, so a database read gives no usable handle (docs/contract.md §4).
struct OAuthGrants: Sendable {
    /// Grants, and the revocation marks of their access tokens.
    let store: any OAuthGrantStore & OAuthClientStore
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer

    /// A stored grant and its decoded payload.
    struct Found<Payload: Codable & Sendable>: Sendable {
        var record: OAuthGrantRecord
        var payload: Payload
        /// Whether the grant's family had been revoked when it was consumed (``consume(_:_:as:)``).
        var familyRevoked = false
    }

    /// Stores `payload` under a new handle and returns the handle. `credentialID` is the passkey
    /// whose sign-in the grant stands for: deleting it ends the grant.
    func create<Payload: Codable & Sendable>(
        _ kind: OAuthGrantKind, _ payload: Payload, lifetime: TimeInterval, family: String? = nil,
        subject: String? = nil, prefix: String = "", credentialID: [UInt8]? = nil
    ) async throws -> String {
        let handle = prefix + Base64URL.encode(Secrets.randomBytes(32))
        try await store(
            kind, handleHash: Secrets.hash(handle), payload, lifetime: lifetime, family: family,
            subject: subject, credentialID: credentialID)
        return handle
    }

    /// Stores `payload` under a handle hash the caller derived (consents: one per client and user).
    func store<Payload: Codable & Sendable>(
        _ kind: OAuthGrantKind, handleHash: [UInt8], _ payload: Payload, lifetime: TimeInterval,
        family: String? = nil, subject: String? = nil, credentialID: [UInt8]? = nil
    ) async throws {
        let now = self.now()
        try await store.insertOAuthGrant(
            OAuthGrantRecord(
                kind: kind, handleHash: handleHash, applicationID: issuer.application.id, family: family,
                subject: subject, payload: Array(try JSONEncoder().encode(payload)), createdAt: now,
                expiresAt: now.addingTimeInterval(lifetime), credentialID: credentialID))
    }

    /// The live (unexpired, unconsumed) grant of `handle`; `nil` otherwise.
    func live<Payload: Codable & Sendable>(_ kind: OAuthGrantKind, _ handle: String, as type: Payload.Type)
        async throws -> Found<Payload>?
    {
        try await live(kind, handleHash: Secrets.hash(handle), as: type)
    }

    /// The live grant stored under `handleHash`.
    func live<Payload: Codable & Sendable>(_ kind: OAuthGrantKind, handleHash: [UInt8], as type: Payload.Type)
        async throws -> Found<Payload>?
    {
        guard
            let record = try await store.oauthGrant(
                kind: kind, handleHash: handleHash, applicationID: issuer.application.id),
            record.consumedAt == nil, record.expiresAt > now()
        else { return nil }
        return try decode(record, as: type)
    }

    /// Consumes the grant of `handle` (exactly one caller, on any instance, gets it). When it was
    /// already consumed, `replayed` is its record, so the caller can revoke what it issued.
    func consume<Payload: Codable & Sendable>(_ kind: OAuthGrantKind, _ handle: String, as type: Payload.Type)
        async throws -> (found: Found<Payload>?, replayed: OAuthGrantRecord?)
    {
        try await consume(kind, handleHash: Secrets.hash(handle), as: type)
    }

    /// ``consume(_:_:as:)`` of the grant stored under `hash`.
    func consume<Payload: Codable & Sendable>(_ kind: OAuthGrantKind, handleHash hash: [UInt8], as type: Payload.Type)
        async throws -> (found: Found<Payload>?, replayed: OAuthGrantRecord?)
    {
        let id = issuer.application.id
        if let consumed = try await store.consumeOAuthGrant(
            kind: kind, handleHash: hash, applicationID: id, at: now())
        {
            var found = try decode(consumed.record, as: type)
            found.familyRevoked = consumed.familyRevoked
            return (found, nil)
        }
        let spent = try await store.oauthGrant(kind: kind, handleHash: hash, applicationID: id)
        return (nil, spent?.consumedAt == nil ? nil : spent)
    }

    /// A grant consumed by ``rotate(_:_:successorPrefix:as:)`` and what was read with it.
    struct Rotated<Payload: Codable & Sendable>: Sendable {
        /// The consumed grant, with whether its family had been revoked.
        var found: Found<Payload>
        /// The successor's handle, stored as a copy of the consumed grant (its payload and
        /// expiry); `nil` when it was not stored (the family was revoked).
        var successor: String?
        /// The user the grant's passkey is registered to now; `nil` when the grant names none
        /// or the passkey is gone.
        var credentialOwner: String?
        /// The profile of the grant's subject; `nil` when it has none.
        var subjectProfile: UserProfileRecord?
    }

    /// Consumes the grant of `handle` as ``consume(_:_:as:)`` does and, with it, stores its
    /// successor under a new handle (`prefix` and 256 random bits): a copy of the grant, unless
    /// its family was revoked. On PostgreSQL one statement does both and reads what issuing
    /// checks (``Rotated``). When the grant was already consumed, `replayed` is its record.
    func rotate<Payload: Codable & Sendable>(
        _ kind: OAuthGrantKind, _ handle: String, successorPrefix prefix: String, as type: Payload.Type
    ) async throws -> (rotated: Rotated<Payload>?, replayed: OAuthGrantRecord?) {
        let (hash, id) = (Secrets.hash(handle), issuer.application.id)
        let successor = prefix + Base64URL.encode(Secrets.randomBytes(32))
        if let rotation = try await store.rotateOAuthGrant(
            kind: kind, handleHash: hash, applicationID: id, successorHash: Secrets.hash(successor), at: now())
        {
            var found = try decode(rotation.record, as: type)
            found.familyRevoked = rotation.familyRevoked
            return (
                Rotated(
                    found: found, successor: rotation.successorStored ? successor : nil,
                    credentialOwner: rotation.credentialOwner, subjectProfile: rotation.subjectProfile), nil
            )
        }
        let spent = try await store.oauthGrant(kind: kind, handleHash: hash, applicationID: id)
        return (nil, spent?.consumedAt == nil ? nil : spent)
    }

    /// Removes the grant of `handle` (a successor never handed out); `false` when there was none.
    @discardableResult
    func discard(_ kind: OAuthGrantKind, _ handle: String) async throws -> Bool {
        try await store.deleteOAuthGrant(
            kind: kind, handleHash: Secrets.hash(handle), applicationID: issuer.application.id)
    }

    /// Replaces the payload of a live grant; `false` when it is no longer live.
    func update<Payload: Codable & Sendable>(
        _ kind: OAuthGrantKind, _ handle: String, _ payload: Payload, subject: String?, expiresAt: Date
    ) async throws -> Bool {
        try await update(kind, handleHash: Secrets.hash(handle), payload, subject: subject, expiresAt: expiresAt)
    }

    /// ``update(_:_:_:subject:expiresAt:)`` of the grant stored under `handleHash`.
    func update<Payload: Codable & Sendable>(
        _ kind: OAuthGrantKind, handleHash: [UInt8], _ payload: Payload, subject: String?, expiresAt: Date
    ) async throws -> Bool {
        try await store.updateOAuthGrant(
            kind: kind, handleHash: handleHash, applicationID: issuer.application.id,
            payload: Array(try JSONEncoder().encode(payload)), subject: subject, expiresAt: expiresAt,
            now: now())
    }

    /// Ends everything issued in `family`: its refresh tokens and codes, and its access tokens
    /// (their `jti` starts with the family, RFC 6749 §10.4 and RFC 9700 §4.14.2).
    ///
    /// The family's mark goes in first, then its grants are consumed: a refresh token issued
    /// into the family at the same time on another instance is either consumed by the second
    /// statement or refused later by the mark (``consume(_:_:as:)`` reports it with the grant).
    func revokeFamily(_ family: String) async throws {
        let id = issuer.application.id
        try await store.revokeAccessToken(
            jti: family, applicationID: id,
            expiresAt: now().addingTimeInterval(TimeInterval(OAuthClientSettings.refreshTokenTTL.upperBound)))
        _ = try await store.revokeOAuthGrantFamily(applicationID: id, family: family, at: now())
    }

    /// Whether `family` was revoked.
    func isFamilyRevoked(_ family: String) async throws -> Bool {
        try await store.isAccessTokenRevoked(jti: family, applicationID: issuer.application.id)
    }

    private func decode<Payload: Codable & Sendable>(_ record: OAuthGrantRecord, as type: Payload.Type) throws
        -> Found<Payload>
    {
        do {
            return Found(record: record, payload: try JSONDecoder().decode(type, from: Data(record.payload)))
        } catch {
            throw StoreError(.corrupt, "an OAuth grant's payload does not decode: \(error)")
        }
    }
}
