import Crypto
import Foundation
import Synchronization
import UMFAEncoding
import UMFAJOSE

/// Issues and validates UMFA login tokens and publishes the signing keys as JWKS.
///
/// Each application signs with one algorithm (RS256 by default, ES256 or EdDSA as its
/// `token_signing_alg`); the service keeps one current key of each, side by side in the store,
/// and validates a token with the key its `kid` names, whatever the algorithm, provided the
/// header's `alg` is that key's: an application that changes algorithm keeps its unexpired tokens.
///
/// Signing keys live in the store, their private halves sealed with the ``MasterKey``, so every
/// server instance on the same database signs and validates alike. A key rotated on another
/// instance reaches this one within ``refreshInterval`` (it starts signing with it and lists it
/// in JWKS), and at once for validation: a token whose `kid` is not known yet makes the
/// service reload the keys.
package actor TokenService {
    private let store: any SigningKeyStore
    private let masterKey: MasterKey
    /// The PKCS #11 tokens keys may live in (`UMFA_PKCS11_MODULE`); `nil` without a module.
    private nonisolated let hsm: PKCS11Keys?
    /// The `iss` of every token, `UMFA::Authenticator` by default.
    package nonisolated let issuer: String
    /// The loaded keys, read without entering the actor: signing and validating run on any
    /// number of threads at once. Only loading keys goes through the actor.
    private nonisolated let keySet = KeySetBox()
    /// Login tokens that passed validation, so a token checked again costs no signature.
    nonisolated let verifiedTokens = VerifiedTokenMemo()
    private var published: [SigningKeyRecord] = []
    /// How old the loaded key set may get before signing or JWKS looks at the store again.
    package nonisolated let refreshInterval: Duration
    /// The clock keys are created and retired by, and JWKS is judged at.
    private nonisolated let now: @Sendable () -> Date
    /// Told of every signature made (its algorithm and how long it took), for metrics.
    package nonisolated let signatureObserver: (@Sendable (TokenSigningAlgorithm, Duration) -> Void)?

    /// Creates a service; call ``loadKeys()`` before use.
    package init(
        store: any SigningKeyStore, masterKey: MasterKey, issuer: String = "UMFA::Authenticator",
        refreshInterval: Duration = .seconds(10), now: @escaping @Sendable () -> Date = { Date() },
        signatureObserver: (@Sendable (TokenSigningAlgorithm, Duration) -> Void)? = nil, hsm: PKCS11Keys? = nil
    ) {
        self.hsm = hsm
        self.now = now
        self.signatureObserver = signatureObserver
        self.store = store
        self.masterKey = masterKey
        self.issuer = issuer
        self.refreshInterval = refreshInterval
    }

    /// Looks for keys another instance added when the loaded set is older than ``refreshInterval``.
    private func refreshIfStale() async throws {
        guard ContinuousClock.now - keySet.current.loadedAt > refreshInterval else { return }
        let stored = try await store.signingKeys()
        if stored.map(\.kid) != published.map(\.kid) || stored.map(\.retiredAt) != published.map(\.retiredAt) {
            try await reload()
        } else {
            keySet.update { $0.refreshed() }
        }
    }

    /// The keys for signing or validating now: the loaded set, looked at again in the store
    /// when it is older than ``refreshInterval``.
    nonisolated func currentKeys() async throws -> SigningKeySet {
        let loaded = keySet.current
        guard ContinuousClock.now - loaded.loadedAt > refreshInterval else { return loaded }
        try await refreshIfStale()
        return keySet.current
    }

    /// Loads the signing keys, generating the first one of each algorithm under the store's
    /// migration lock, so instances starting together on a fresh database make one key of
    /// each, not one each.
    package func loadKeys() async throws {
        let stored = Set(try await store.signingKeys().map(\.algorithm))
        for algorithm in TokenSigningAlgorithm.allCases where !stored.contains(algorithm.rawValue) {
            let (masterKey, now) = (masterKey, now)
            _ = try await store.insertFirstSigningKey(algorithm: algorithm.rawValue) {
                try Self.newKey(algorithm, sealedWith: masterKey, at: now())
            }
        }
        try await reload()
        // A current key in a token must be usable now: a wrong PIN or a key gone from its token
        // stops the start with the reason, rather than failing every sign-in later.
        for kid in keySet.current.currentKIDs.values {
            if case .hsm(let key) = keySet.current.keys[kid]?.material { try key.checkPair() }
        }
    }

    /// Adds the key pair `uri` names in a PKCS #11 token as the new signing key of `algorithm`
    /// (ES256 or RS256); the token keeps the private key, the store its URI (sealed) and public
    /// key. Older keys keep validating until their tokens have expired.
    /// - Returns: the new key's id.
    package func rotate(pkcs11 uri: PKCS11URI, algorithm: TokenSigningAlgorithm) async throws -> String {
        guard let hsm else {
            throw PKCS11Failure("no PKCS #11 module: set UMFA_PKCS11_MODULE and UMFA_PKCS11_PIN_FILE")
        }
        guard algorithm != .edDSA else {
            throw PKCS11Failure("EdDSA keys are not taken from PKCS #11 tokens: use ES256 or RS256")
        }
        let publicKey = try hsm.publicKey(uri, algorithm: algorithm)
        let material = try TokenKeyMaterial(hsm: uri, algorithm: algorithm, keys: hsm, publicKeyBytes: publicKey)
        if case .hsm(let key) = material { try key.checkPair() }
        let record = try Self.record(material, sealedWith: masterKey, at: now())
        // The same pair again: a no-op when it is the current key (a retried request); a key
        // once retired is not made current again.
        if let stored = try await store.signingKeys().first(where: { $0.kid == record.kid }) {
            guard stored.retiredAt == nil else {
                throw PKCS11Failure(
                    "this key pair was a signing key before (kid \(record.kid)) and is retired: make a new pair")
            }
            return record.kid
        }
        try await store.insertSigningKey(record, retiringOthersAt: now())
        try await reload()
        return record.kid
    }

    /// Adds a new signing key of every algorithm, each signing from now on; older keys keep
    /// validating until their tokens have expired.
    /// - Returns: the new keys' ids by algorithm.
    package func rotate() async throws -> [TokenSigningAlgorithm: String] {
        var kids: [TokenSigningAlgorithm: String] = [:]
        for algorithm in TokenSigningAlgorithm.allCases {
            let record = try Self.newKey(algorithm, sealedWith: masterKey, at: now())
            try await store.insertSigningKey(record, retiringOthersAt: now())
            kids[algorithm] = record.kid
        }
        try await reload()
        return kids
    }

    /// The AEAD context a signing key's private half is sealed under: its `kid`, so a sealed key
    /// cannot be passed off as another's.
    package static func sealingContext(kid: String) -> String { "signing-key:" + kid }

    /// A new key of `algorithm`, its private half sealed with `masterKey`, its id the RFC 7638
    /// thumbprint of its public JWK.
    private static func newKey(_ algorithm: TokenSigningAlgorithm, sealedWith masterKey: MasterKey, at date: Date)
        throws -> SigningKeyRecord
    {
        try record(TokenKeyMaterial(generating: algorithm), sealedWith: masterKey, at: date)
    }

    /// The stored form of `material`, its private half (or its token's URI) sealed.
    private static func record(_ material: TokenKeyMaterial, sealedWith masterKey: MasterKey, at date: Date)
        throws -> SigningKeyRecord
    {
        let algorithm = material.algorithm
        let jwk = try TokenKeyMaterial.publicJWK(algorithm: algorithm, publicKeyBytes: material.publicKeyBytes)
        let kid = JWKThumbprint.compute(jwk)
        return SigningKeyRecord(
            kid: kid, algorithm: algorithm.rawValue, publicKey: material.publicKeyBytes,
            sealedPrivateKey: try masterKey.seal(material.privateKeyBytes, context: Self.sealingContext(kid: kid)),
            createdAt: date, retiredAt: nil)
    }

    private func reload() async throws {
        let records = try await store.signingKeys()
        let loaded = try SigningKeySet(records: records, masterKey: masterKey, issuer: issuer, hsm: hsm)
        published = records
        keySet.update { _ in loaded }
        // A kid stands for one key only as long as the loaded set says so.
        verifiedTokens.removeAll()
    }

    /// Signs a login token for `claims` with the current key of `algorithm`, in the calling task.
    package nonisolated func issue(_ claims: LoginTokenClaims, algorithm: TokenSigningAlgorithm = .rs256)
        async throws -> String
    {
        let key = try await currentSigningKey(algorithm)
        return try timed(algorithm) { try LoginTokenJWS.sign(claims, key: key) }
    }

    /// Runs one signature and tells ``signatureObserver`` how long it took.
    nonisolated func timed<Value>(_ algorithm: TokenSigningAlgorithm, _ sign: () throws -> Value) rethrows -> Value {
        guard let signatureObserver else { return try sign() }
        let start = ContinuousClock.now
        let value = try sign()
        signatureObserver(algorithm, ContinuousClock.now - start)
        return value
    }

    /// The key new tokens of `algorithm` are signed with.
    nonisolated func currentSigningKey(_ algorithm: TokenSigningAlgorithm) async throws -> SigningKeySet.Key {
        let keys = try await currentKeys()
        guard let kid = keys.currentKIDs[algorithm], let key = keys.keys[kid] else {
            throw TokenValidationFailure("no \(algorithm.rawValue) signing key is loaded")
        }
        return key
    }

    /// The public keys, current and retired, as a JWK Set; a key retired longer ago than
    /// ``longestLifetime`` is left out, since no token it signed can still be valid.
    package func jwks() async throws -> JWKSDocument {
        try await refreshIfStale()
        let now = now()
        let live = published.filter { record in
            record.retiredAt.map { now.timeIntervalSince($0) <= Self.longestLifetime } ?? true
        }
        return JWKSDocument(keys: live.compactMap { JWKSDocument.Key(record: $0) })
    }

    /// The longest token lifetime an application may set; a key retired longer ago than this
    /// has no unexpired token left, so it validates nothing and leaves the JWKS.
    package static let longestLifetime: TimeInterval = 86_400

    /// How far ahead of this server's clock a token's `iat` may be (another instance's clock).
    package static let clockSkew: TimeInterval = 60

    /// Validates a login token for `applicationID` and `userID` as docs/contract.md §2 and §4 specify.
    ///
    /// Besides the documented claims: `exp − iat` must not exceed `maximumLifetime` (the
    /// application's token TTL), a retired key validates only tokens issued before it retired
    /// and none once it has been retired for longer than `maximumLifetime`.
    /// - Throws: ``TokenValidationFailure`` whose message names the reason, in the style
    ///   `Invalid JWT: There is no user_id claim`.
    package nonisolated func validate(
        _ token: String, applicationID: UUID, userID: String, maximumLifetime: TimeInterval, now: Date = Date()
    ) async throws(TokenValidationFailure) -> LoginTokenClaims? {
        let (claims, key, unseen) = try await verifiedClaims(token, now: now, maximumLifetime: maximumLifetime)
        try check(claims, applicationID: applicationID, userID: userID, now: now)
        try checkLifetime(claims, key: key, maximumLifetime: maximumLifetime, now: now)
        if let unseen { verifiedTokens.remember(unseen, claims: claims, kid: key.kid, now: now) }
        return claims.loginClaims
    }

    private nonisolated func checkLifetime(
        _ claims: ReceivedLoginClaims, key: SigningKeySet.Key, maximumLifetime: TimeInterval, now: Date
    ) throws(TokenValidationFailure) {
        guard let iat = claims.iat, let exp = claims.exp else { return }
        guard exp - iat <= maximumLifetime else {
            throw TokenValidationFailure("Invalid JWT: the token lives longer than the application's token TTL")
        }
        guard iat <= now.timeIntervalSince1970 + Self.clockSkew else {
            throw TokenValidationFailure("Invalid JWT: the token was issued in the future")
        }
        if let retiredAt = key.retiredAt {
            // iat is whole seconds, rounded down; the key's last token was issued before it retired.
            guard iat <= retiredAt.timeIntervalSince1970 else {
                throw TokenValidationFailure("Invalid JWT: the token was issued after its signing key was retired")
            }
        }
    }

    /// The token's claims and the key that signed it, from memory when the same bytes passed
    /// validation before (`unseen` is then `nil`), verified in full otherwise (`unseen` is what
    /// to remember the token by once the caller's checks pass).
    private nonisolated func verifiedClaims(_ token: String, now: Date, maximumLifetime: TimeInterval)
        async throws(TokenValidationFailure) -> (
            ReceivedLoginClaims, SigningKeySet.Key, unseen: VerifiedTokenMemo.Unseen?
        )
    {
        // The same bytes passed before, under a key still loaded: only what time changes is
        // checked again (here the key's retirement, in the caller everything else).
        let digest = VerifiedTokenMemo.digest(of: token)
        let keys = keySet.current.keys
        if let (known, key) = verifiedTokens.recall(digest, now: now, key: { keys[$0] }) {
            try checkNotRetiredTooLong(key, now: now, maximumLifetime: maximumLifetime)
            return (known.claims, key, nil)
        }
        // Taken before the full check reads the keys: a reload after this point keeps the token
        // out of memory.
        let unseen = verifiedTokens.unseen(digest)
        let (parts, key) = try await verifiedJWS(token, now: now, maximumLifetime: maximumLifetime)
        guard
            let claims = LoginClaimsFastPath.read(parts.payload)
                ?? (try? JSONDecoder().decode(ReceivedLoginClaims.self, from: parts.payload))
        else {
            throw TokenValidationFailure("Invalid JWT: the claims are not a JSON object of the expected types")
        }
        return (claims, key, unseen)
    }

    /// A key retired for longer than the longest lifetime a token of it can have validates nothing.
    private nonisolated func checkNotRetiredTooLong(_ key: SigningKeySet.Key, now: Date, maximumLifetime: TimeInterval)
        throws(TokenValidationFailure)
    {
        if let retiredAt = key.retiredAt, now.timeIntervalSince(retiredAt) > min(maximumLifetime, Self.longestLifetime)
        {
            throw TokenValidationFailure("Invalid JWT: the signing key \(key.kid) was retired too long ago")
        }
    }

    /// A JWS signed by one of the loaded keys (RS256, no critical extensions, a key not retired
    /// longer than `maximumLifetime` ago): its parts and the key; any other token is refused.
    nonisolated func verifiedJWS(_ token: String, now: Date, maximumLifetime: TimeInterval)
        async throws(TokenValidationFailure) -> (LoginTokenJWS.Parts, SigningKeySet.Key)
    {
        guard let parts = LoginTokenJWS.parts(of: token, known: keySet.current.headers) else {
            throw TokenValidationFailure("Invalid JWT: the token is not a JWT")
        }
        guard let alg = parts.header.alg.flatMap(TokenSigningAlgorithm.init(rawValue:)) else {
            throw TokenValidationFailure("Invalid JWT: the algorithm must be RS256, ES256 or EdDSA")
        }
        guard !parts.header.members.contains("crit") else {
            throw TokenValidationFailure("Invalid JWT: the header names critical extensions")
        }
        guard let kid = parts.header.kid else {
            throw TokenValidationFailure("Invalid JWT: there is no kid in the header")
        }
        var key = keySet.current.keys[kid]
        if key == nil {
            // A key rotated by another instance: reload, but only when the store really has that
            // kid, so tokens with made-up kids cannot make every request decrypt all keys again.
            await reloadIfStored(kid: kid)
            key = keySet.current.keys[kid]
        }
        guard let key else { throw TokenValidationFailure("Invalid JWT: the signing key \(kid) is unknown") }
        // The key decides the algorithm, never the header (RFC 8725 §3.1).
        guard key.algorithm == alg else {
            throw TokenValidationFailure(
                "Invalid JWT: the algorithm is not the signing key's (\(key.algorithm.rawValue))")
        }
        try checkNotRetiredTooLong(key, now: now, maximumLifetime: maximumLifetime)
        guard LoginTokenJWS.isSigned(parts, by: key) else {
            throw TokenValidationFailure("Invalid JWT: the signature does not verify")
        }
        return (parts, key)
    }

    private func reloadIfStored(kid: String) async {
        guard keySet.current.keys[kid] == nil, let stored = try? await store.signingKeys(),
            stored.contains(where: { $0.kid == kid })
        else { return }
        try? await reload()
    }

    private nonisolated func check(_ claims: ReceivedLoginClaims, applicationID: UUID, userID: String, now: Date)
        throws(TokenValidationFailure)
    {
        // Required claims, named in the documented order.
        let present: [(String, Bool)] = [
            ("iss", claims.iss != nil), ("sub", claims.sub != nil), ("iat", claims.iat != nil),
            ("exp", claims.exp != nil), ("user_id", claims.userID != nil),
            ("webauthn_time", claims.webauthnTime != nil),
        ]
        if let missing = present.first(where: { !$0.1 }) {
            throw TokenValidationFailure("Invalid JWT: There is no \(missing.0) claim")
        }
        guard claims.iss == issuer else { throw TokenValidationFailure("Invalid JWT: the issuer is not \(issuer)") }
        guard claims.sub == LoginTokenClaims.subject else {
            throw TokenValidationFailure("Invalid JWT: the subject is not \(LoginTokenClaims.subject)")
        }
        guard let exp = claims.exp, exp > now.timeIntervalSince1970 else {
            throw TokenValidationFailure("Invalid JWT: the token has expired")
        }
        // Byte for byte: a Unicode-equal spelling of the user id is another user (docs/contract.md §4).
        guard let claimed = claims.userID, claimed.isSameBytes(as: userID) else {
            throw TokenValidationFailure("Invalid JWT: the user_id claim does not match the user")
        }
        let application = applicationID.uuidString.lowercased()
        guard claims.applicationID?.lowercased() == application,
            claims.aud?.values.contains(where: { $0.lowercased() == application }) == true
        else {
            throw TokenValidationFailure("Invalid JWT: the token was issued for another application")
        }
    }
}

/// A login token failed validation; the message names why.
package struct TokenValidationFailure: Error, Sendable, CustomStringConvertible {
    /// The reason, such as `Invalid JWT: There is no user_id claim`.
    package let message: String

    /// Creates a failure.
    package init(_ message: String) { self.message = message }

    /// The reason.
    package var description: String { message }
}

/// A JWK Set (RFC 7517 §5) of the signing keys: RSA (RS256), EC P-256 (ES256) and OKP
/// Ed25519 (EdDSA, RFC 8037).
package struct JWKSDocument: Codable, Sendable, Equatable {
    /// One public key.
    package struct Key: Codable, Sendable, Equatable {
        /// `RSA`, `EC` or `OKP`.
        package let kty: String
        /// The key id, its RFC 7638 thumbprint.
        package let kid: String
        /// `sig`.
        package let use: String
        /// `RS256`, `ES256` or `EdDSA`.
        package let alg: String
        /// The modulus of an RSA key, base64url.
        package let n: String?
        /// The public exponent of an RSA key, base64url.
        package let e: String?
        /// The curve of an EC or OKP key: `P-256` or `Ed25519`.
        package let crv: String?
        /// The x coordinate of an EC key, or the public key of an OKP key, base64url.
        package let x: String?
        /// The y coordinate of an EC key, base64url.
        package let y: String?

        init?(record: SigningKeyRecord) {
            guard let algorithm = TokenSigningAlgorithm(rawValue: record.algorithm),
                let jwk = try? TokenKeyMaterial.publicJWK(algorithm: algorithm, publicKeyBytes: record.publicKey),
                let kty = jwk.kty
            else { return nil }
            self.kty = kty
            kid = record.kid
            use = "sig"
            alg = algorithm.rawValue
            (n, e, crv, x, y) = (jwk.n, jwk.e, jwk.crv, jwk.x, jwk.y)
        }
    }

    /// The keys.
    package let keys: [Key]
}

/// Base64url without padding for `Data`, as JWS (RFC 7515 §2) writes it. Tokens are read
/// through `CompactJWSParts` in their one canonical spelling (no padding, no standard alphabet,
/// no spare bits set), so the same signature never validates under a second string (docs/contract.md §4).
enum Base64URLText {
    static func encode(_ data: Data) -> String {
        Base64URL.encode(data)
    }
}

/// Holds the current ``SigningKeySet`` for readers on any thread.
final class KeySetBox: Sendable {
    private let storage = Mutex(SigningKeySet.empty)

    var current: SigningKeySet { storage.withLock { $0 } }

    func update(_ change: (SigningKeySet) -> SigningKeySet) {
        storage.withLock { $0 = change($0) }
    }
}
