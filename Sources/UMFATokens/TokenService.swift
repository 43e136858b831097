import Crypto
import Foundation
import JWTKit
import UMFAStorage
import UMFAWebAuthn
import _CryptoExtras

/// Issues and validates UMFA login tokens (RS256) and publishes the signing keys as JWKS.
///
/// Signing keys live in the store, their private halves sealed with the ``MasterKey``, so every
/// server instance on the same database signs and validates alike. A key rotated on another
/// instance reaches this one within ``refreshInterval`` (it starts signing with it and lists it
/// in JWKS), and at once for validation: a token whose `kid` is not known yet makes the
/// service reload the keys.
public actor TokenService {
    private let store: any UMFAStore
    private let masterKey: MasterKey
    /// The `iss` of every token, `UMFA::Authenticator` by default.
    public nonisolated let issuer: String
    private var keys = JWTKeyCollection()
    private var currentKID: String?
    private var published: [SigningKeyRecord] = []
    private var loadedAt = ContinuousClock.now
    /// How old the loaded key set may get before signing or JWKS looks at the store again.
    public nonisolated let refreshInterval: Duration

    /// Creates a service; call ``loadKeys()`` before use.
    public init(
        store: any UMFAStore, masterKey: MasterKey, issuer: String = "UMFA::Authenticator",
        refreshInterval: Duration = .seconds(10)
    ) {
        self.store = store
        self.masterKey = masterKey
        self.issuer = issuer
        self.refreshInterval = refreshInterval
    }

    /// Looks for keys another instance added when the loaded set is older than ``refreshInterval``.
    private func refreshIfStale() async throws {
        guard ContinuousClock.now - loadedAt > refreshInterval else { return }
        let stored = try await store.signingKeys()
        loadedAt = .now
        if stored.map(\.kid) != published.map(\.kid) || stored.map(\.retiredAt) != published.map(\.retiredAt) {
            try await reload()
        }
    }

    /// Loads the signing keys, generating the first one on a fresh database.
    public func loadKeys() async throws {
        if try await store.signingKeys().isEmpty {
            _ = try await rotate()
        } else {
            try await reload()
        }
    }

    /// Adds a new RSA-2048 signing key that signs from now on; older keys keep validating.
    /// - Returns: the new key's id.
    public func rotate() async throws -> String {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let publicDER = [UInt8](privateKey.publicKey.derRepresentation)
        let kid = try Self.thumbprint(of: privateKey.publicKey)
        let record = SigningKeyRecord(
            kid: kid, algorithm: "RS256", publicKey: publicDER,
            sealedPrivateKey: try masterKey.seal([UInt8](privateKey.derRepresentation), context: "signing-key:" + kid),
            createdAt: Date(), retiredAt: nil)
        try await store.insertSigningKey(record, retiringOthersAt: Date())
        try await reload()
        return kid
    }

    private func reload() async throws {
        let records = try await store.signingKeys()
        let collection = JWTKeyCollection()
        for record in records {
            let der = try masterKey.open(record.sealedPrivateKey, context: "signing-key:" + record.kid)
            let key = try Insecure.RSA.PrivateKey(backing: try _RSA.Signing.PrivateKey(derRepresentation: der))
            await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: record.kid))
        }
        keys = collection
        published = records
        loadedAt = .now
        currentKID = records.first { $0.retiredAt == nil }?.kid ?? records.first?.kid
    }

    /// Signs a login token for `claims` with the current key.
    public func issue(_ claims: LoginTokenClaims) async throws -> String {
        try await refreshIfStale()
        guard let currentKID else { throw TokenValidationFailure("no signing key is loaded") }
        var header = JWTHeader()
        header.fields["typ"] = .string("JWT")
        header.fields["iss"] = .string(issuer)
        return try await keys.sign(claims, kid: JWKIdentifier(string: currentKID), header: header)
    }

    /// The public keys, current and retired, as a JWK Set.
    public func jwks() async throws -> JWKSDocument {
        try await refreshIfStale()
        return JWKSDocument(keys: published.compactMap { JWKSDocument.Key(record: $0) })
    }

    /// Validates a login token for `applicationID` and `userID` as DESIGN.md §2 specifies.
    ///
    /// - Throws: ``TokenValidationFailure`` whose message names the reason, in the style
    ///   `Invalid JWT: There is no user_id claim`.
    public func validate(_ token: String, applicationID: UUID, userID: String, now: Date = Date())
        async throws(TokenValidationFailure) -> LoginTokenClaims?
    {
        let claims = try await verifiedClaims(token)
        try check(claims, applicationID: applicationID, userID: userID, now: now)
        return claims.loginClaims
    }

    private func verifiedClaims(_ token: String) async throws(TokenValidationFailure) -> ReceivedLoginClaims {
        guard let header = Self.header(of: token) else {
            throw TokenValidationFailure("Invalid JWT: the token is not a JWT")
        }
        guard header.alg == "RS256" else {
            throw TokenValidationFailure("Invalid JWT: the algorithm must be RS256")
        }
        guard let kid = header.kid else {
            throw TokenValidationFailure("Invalid JWT: there is no kid in the header")
        }
        if !published.contains(where: { $0.kid == kid }) {
            // A key rotated by another instance: reload, but only when the store really has that
            // kid, so tokens with made-up kids cannot make every request decrypt all keys again.
            if let stored = try? await store.signingKeys(), stored.contains(where: { $0.kid == kid }) {
                try? await reload()
            }
            guard published.contains(where: { $0.kid == kid }) else {
                throw TokenValidationFailure("Invalid JWT: the signing key \(kid) is unknown")
            }
        }
        do {
            return try await keys.verify(token, as: ReceivedLoginClaims.self)
        } catch {
            throw TokenValidationFailure("Invalid JWT: the signature does not verify")
        }
    }

    private func check(_ claims: ReceivedLoginClaims, applicationID: UUID, userID: String, now: Date)
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
        guard claims.userID == userID else {
            throw TokenValidationFailure("Invalid JWT: the user_id claim does not match the user")
        }
        let application = applicationID.uuidString.lowercased()
        guard claims.applicationID?.lowercased() == application,
            claims.aud?.values.contains(where: { $0.lowercased() == application }) == true
        else {
            throw TokenValidationFailure("Invalid JWT: the token was issued for another application")
        }
    }

    /// The two header fields validation looks at before the signature.
    struct HeaderFields: Decodable {
        let alg: String?
        let kid: String?
    }

    /// The `alg` and `kid` of a compact JWS, or `nil` when it is not one. Only these two are
    /// decoded: JWTKit reads the whole header again when it checks the signature.
    static func header(of token: String) -> HeaderFields? {
        // Byte offsets, not `String.split`: splitting by Character cost 10 % of validate-token.
        let bytes = token.utf8
        guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = bytes[bytes.index(after: firstDot)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[bytes.index(after: secondDot)...].contains(UInt8(ascii: ".")),
            let header = String(bytes[..<firstDot]), let data = Base64URLText.decode(header)
        else { return nil }
        return try? JSONDecoder().decode(HeaderFields.self, from: data)
    }

    /// The RFC 7638 JWK thumbprint of an RSA public key, base64url.
    static func thumbprint(of key: _RSA.Signing.PublicKey) throws -> String {
        let primitives = try key.getKeyPrimitives()
        let json =
            "{\"e\":\"\(Base64URLText.encode(primitives.publicExponent))\",\"kty\":\"RSA\",\"n\":\"\(Base64URLText.encode(primitives.modulus))\"}"
        return Base64URLText.encode(Data(SHA256.hash(data: Data(json.utf8))))
    }
}

/// A login token failed validation; the message names why.
public struct TokenValidationFailure: Error, Sendable, CustomStringConvertible {
    /// The reason, such as `Invalid JWT: There is no user_id claim`.
    public let message: String

    /// Creates a failure.
    public init(_ message: String) { self.message = message }

    /// The reason.
    public var description: String { message }
}

/// A JWK Set (RFC 7517 §5) of RSA signing keys.
public struct JWKSDocument: Codable, Sendable, Equatable {
    /// One public key.
    public struct Key: Codable, Sendable, Equatable {
        /// `RSA`.
        public let kty: String
        /// The key id, its RFC 7638 thumbprint.
        public let kid: String
        /// `sig`.
        public let use: String
        /// `RS256`.
        public let alg: String
        /// The modulus, base64url.
        public let n: String
        /// The public exponent, base64url.
        public let e: String

        init?(record: SigningKeyRecord) {
            guard let key = try? _RSA.Signing.PublicKey(derRepresentation: record.publicKey),
                let primitives = try? key.getKeyPrimitives()
            else { return nil }
            kty = "RSA"
            kid = record.kid
            use = "sig"
            alg = record.algorithm
            n = Base64URLText.encode(primitives.modulus)
            e = Base64URLText.encode(primitives.publicExponent)
        }
    }

    /// The keys.
    public let keys: [Key]
}

/// Base64url without padding for `Data`, strictly: JWS (RFC 7515 §2) allows neither padding
/// nor the standard alphabet, so those are refused before the shared codec reads the rest.
enum Base64URLText {
    static func encode(_ data: Data) -> String {
        Base64URL.encode(data)
    }

    static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") })
        else { return nil }
        return Base64URL.decode(text).map { Data($0) }
    }
}
