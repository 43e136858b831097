import Foundation

/// The part of the store the token service uses: the signing keys, sealed with the master key.
/// The token service declares it; each store engine (UMFAStorage's SQL store) conforms.
package protocol SigningKeyStore: Sendable {
    /// Every signing key, newest first (within one millisecond the current one first).
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Adds a signing key and retires the other current keys of its algorithm at `retiring`.
    /// Only the newest key of each algorithm stays current: a key older than one another
    /// instance rotated in meanwhile is stored retired. A conflicting `kid` throws the store's conflict error and retires nothing.
    func insertSigningKey(_ key: SigningKeyRecord, retiringOthersAt retiring: Date) async throws
    /// Adds the first signing key of `algorithm`, made by `make`, when there is none, under the
    /// migration lock: of several instances starting on a fresh database exactly one creates it.
    /// `false` when a key of that algorithm existed (`make` is then not called).
    func insertFirstSigningKey(
        algorithm: String, _ make: @escaping @Sendable () throws -> SigningKeyRecord
    ) async throws -> Bool
}

/// A token signing key; the private half is encrypted with the master key.
package struct SigningKeyRecord: Sendable, Hashable {
    /// The key id published in JWKS and JWT headers.
    package var kid: String
    /// The algorithm: `RS256`, `ES256` or `EdDSA`.
    package var algorithm: String
    /// The public key, SubjectPublicKeyInfo DER.
    package var publicKey: [UInt8]
    /// The private key sealed with AES-GCM under the master key.
    package var sealedPrivateKey: [UInt8]
    /// When it was created.
    package var createdAt: Date
    /// When it stopped signing; retired keys still verify until their tokens expire.
    package var retiredAt: Date?

    /// Creates a signing key record.
    package init(
        kid: String, algorithm: String, publicKey: [UInt8], sealedPrivateKey: [UInt8], createdAt: Date,
        retiredAt: Date?
    ) {
        self.kid = kid
        self.algorithm = algorithm
        self.publicKey = publicKey
        self.sealedPrivateKey = sealedPrivateKey
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}
