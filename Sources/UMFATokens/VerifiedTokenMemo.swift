import Crypto
import Foundation
import Synchronization

/// Login tokens that passed validation, remembered by the SHA-256 of their bytes with the
/// claims they carry: an application backend that checks the same token on every request then
/// pays for the signature once. Envoy's `jwt_authn`
/// (`jwt_cache_config`) and PostgREST keep the same kind of cache.
///
/// What it stands for is what the bytes alone decide: that the signature verifies under the key
/// its `kid` names and which claims the payload holds. Everything that depends on the time or on
/// the keys is checked again on every call: the key must still be loaded and not retired for too
/// long, and ``TokenService`` checks expiry, lifetime, issuer, audience and user as for any
/// token. Only a token that passed all of that gets in, so an entry costs a real sign-in; the
/// memory is emptied when the signing keys are reloaded and when it reaches ``capacity``.
final class VerifiedTokenMemo: Sendable {
    struct Entry: Sendable {
        let claims: ReceivedLoginClaims
        let kid: String
        /// The token's `exp`: from then on validation refuses it.
        let expires: Double
    }

    /// The most tokens held (each well under a kilobyte).
    let capacity: Int
    private let entries = Mutex<(generation: UInt64, tokens: [SHA256Digest: Entry])>((0, [:]))
    private let hitCount = Atomic<Int>(0)

    init(capacity: Int = 4_096) {
        self.capacity = capacity
    }

    /// The digest a token is remembered by.
    static func digest(of token: String) -> SHA256Digest {
        var token = token
        return token.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
    }

    /// A token seen before ``remember(_:claims:kid:now:)``: its digest and the generation
    /// of the memory then, so a token verified under keys that have since been reloaded is not
    /// remembered (the same rule as ``ValidationCache``'s reads).
    struct Unseen: Sendable {
        let digest: SHA256Digest
        let generation: UInt64
    }

    /// The remembered entry of `digest` and the key `key(kid)` finds for it, when both are there
    /// and the token has not expired at `now`.
    func recall<Key>(_ digest: SHA256Digest, now: Date, key: (String) -> Key?) -> (Entry, Key)? {
        guard let entry = entries.withLock({ $0.tokens[digest] }), entry.expires > now.timeIntervalSince1970,
            let found = key(entry.kid)
        else { return nil }
        hitCount.add(1, ordering: .relaxed)
        return (entry, found)
    }

    /// `digest`, not remembered yet, in the memory's current generation.
    func unseen(_ digest: SHA256Digest) -> Unseen {
        Unseen(digest: digest, generation: entries.withLock { $0.generation })
    }

    /// Remembers a token that passed validation at `now`, unless the memory was emptied since
    /// it was seen.
    func remember(_ token: Unseen, claims: ReceivedLoginClaims, kid: String, now: Date) {
        guard let exp = claims.exp, exp > now.timeIntervalSince1970 else { return }
        let entry = Entry(claims: claims, kid: kid, expires: exp)
        entries.withLock { entries in
            guard entries.generation == token.generation else { return }
            if entries.tokens.count >= capacity { entries.tokens.removeAll(keepingCapacity: true) }
            entries.tokens[token.digest] = entry
        }
    }

    /// Forgets every token, and every token seen until now (the signing keys changed).
    func removeAll() {
        entries.withLock { entries in
            entries.generation &+= 1
            entries.tokens.removeAll()
        }
    }

    /// How many calls were answered from memory, for tests.
    var hits: Int { hitCount.load(ordering: .relaxed) }

    /// How many tokens are held.
    var count: Int { entries.withLock { $0.tokens.count } }
}
