import Crypto
import Foundation
import Synchronization

/// Login tokens whose signature verified and whose claims decoded, remembered by the SHA-256 of
/// their bytes: an application backend that checks the same token on every request then pays
/// for the signature once (`scripts/bench/ANALYSIS.md` item 22). API gateways keep such a cache
/// for the same reason (Envoy's `jwt_authn` has one).
///
/// What it remembers is what the bytes alone decide: that the signature verifies under the key
/// its `kid` names (a kid is the key's thumbprint, so it names one public key) and the claims
/// read from the payload. Everything that depends on the time or on the state of the keys is
/// checked again on every call: the key must still be loaded and not retired for too long, and
/// ``TokenService`` checks expiry, lifetime, audience and user as for any token. Only tokens that
/// verified get in, so a forged token can neither enter nor push out much: at ``capacity`` the
/// expired entries go first, then all of them.
final class VerifiedTokenMemo: Sendable {
    struct Entry: Sendable {
        let claims: ReceivedLoginClaims
        let kid: String
        /// When the entry is of no more use: the token's `exp`, plus the clock skew allowed.
        let forgetAfter: Double
    }

    /// The most tokens held (some 600 bytes each).
    let capacity: Int
    private let entries = Mutex<[SHA256Digest: Entry]>([:])
    private let hitCount = Atomic<Int>(0)

    init(capacity: Int = 4_096) {
        self.capacity = capacity
    }

    /// The digest a token is remembered by.
    static func digest(of token: String) -> SHA256Digest {
        var token = token
        return token.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
    }

    /// The entry of `digest`, if remembered and not past its use at `now`.
    func recall(_ digest: SHA256Digest, now: Date) -> Entry? {
        guard let entry = entries.withLock({ $0[digest] }), entry.forgetAfter > now.timeIntervalSince1970 else {
            return nil
        }
        hitCount.add(1, ordering: .relaxed)
        return entry
    }

    /// Remembers a token that verified; one without `exp` is never valid, so it is not kept.
    func remember(_ digest: SHA256Digest, claims: ReceivedLoginClaims, kid: String, now: Date) {
        guard let exp = claims.exp, exp > now.timeIntervalSince1970 else { return }
        let entry = Entry(claims: claims, kid: kid, forgetAfter: exp + TokenService.clockSkew)
        let nowSeconds = now.timeIntervalSince1970
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.forgetAfter > nowSeconds }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[digest] = entry
        }
    }

    /// How many calls were answered from memory, for tests.
    var hits: Int { hitCount.load(ordering: .relaxed) }

    /// How many tokens are held.
    var count: Int { entries.withLock { $0.count } }
}
