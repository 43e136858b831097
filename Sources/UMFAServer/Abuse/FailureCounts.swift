import Foundation
import UMFAStorage

/// The failure limits whose counts an attacker could multiply by spreading attempts over
/// server instances; each counts under its own name.
enum FailureLimit: String, Sendable, CaseIterable {
    /// Failed verifications of one user from one address.
    case user
    /// Failed verifications from one address.
    case address
    /// Wrong admin tokens, API keys and metrics tokens from one address.
    case credential
    /// Wrong device-grant user codes from one address (RFC 8628 §5.1).
    case userCode = "user_code"

    func limit(in limits: AbuseLimits) -> Int {
        switch self {
        case .user: limits.userFailures
        case .address: limits.addressFailures
        case .credential: limits.credentialFailures
        // The count that sets the block is the first lookup refused (``AbuseGuard/userCodeGuess(_:_:)``).
        case .userCode: AbuseGuard.userCodeLookups + 1
        }
    }
}

/// What a look at some failure keys found.
struct FailureCheck: Sendable {
    /// How long the longest-blocked key must still wait; `nil` when none is blocked.
    var retryAfter: TimeInterval?
    /// The keys that may hold failures, so a success resets only those.
    var counted: Set<AbuseCounterKey>
}

/// Where failures are counted: in this process (``LocalFailureCounts``, for one instance on an
/// SQLite file) or in the database every instance shares (``SharedFailureCounts``, PostgreSQL).
protocol FailureCounts: Sendable {
    /// Whether any of `keys` is blocked at `now`.
    func check(_ keys: [AbuseCounterKey], now: Date) async throws -> FailureCheck
    /// Whether any of `keys` is blocked at `now`, judged from `records`, the stored counters
    /// among `keys` read with other rows (``keysToRead(_:)``).
    func check(_ keys: [AbuseCounterKey], now: Date, read records: [AbuseCounterRecord]) -> FailureCheck
    /// The keys among `keys` whose counters are in the store, for a caller that reads them with
    /// its own rows; empty when failures are counted in memory.
    func keysToRead(_ keys: [AbuseCounterKey]) -> [AbuseCounterKey]
    /// Counts a failure; the block in seconds when this failure reached the limit.
    func recordFailure(_ key: AbuseCounterKey, limit: Int, now: Date) async throws -> TimeInterval?
    /// Forgets a key after a success.
    func reset(_ key: AbuseCounterKey) async throws
    /// Forgets keys whose window and blocks have passed.
    func sweep(now: Date) async throws
    /// The keys held in this process's memory, for tests of the memory bound.
    var trackedKeys: Int { get }
}

/// Failure counts in this process's memory: one ``FailureCounter`` per limit.
struct LocalFailureCounts: FailureCounts {
    private let counters: [String: FailureCounter]

    init(limits: AbuseLimits) {
        counters = Dictionary(
            uniqueKeysWithValues: FailureLimit.allCases.map {
                ($0.rawValue, FailureCounter(limit: $0.limit(in: limits), limits: limits))
            })
    }

    func check(_ keys: [AbuseCounterKey], now: Date) -> FailureCheck {
        FailureCheck(
            retryAfter: keys.compactMap { counters[$0.counter]?.retryAfter($0.key, now: now) }.max(),
            counted: Set(keys))
    }

    /// Counted in memory: `records` is empty and the counters are read here.
    func check(_ keys: [AbuseCounterKey], now: Date, read records: [AbuseCounterRecord]) -> FailureCheck {
        check(keys, now: now)
    }

    func keysToRead(_ keys: [AbuseCounterKey]) -> [AbuseCounterKey] { [] }

    func recordFailure(_ key: AbuseCounterKey, limit: Int, now: Date) -> TimeInterval? {
        counters[key.counter]?.recordFailure(key.key, now: now)
    }

    func reset(_ key: AbuseCounterKey) {
        counters[key.counter]?.reset(key.key)
    }

    func sweep(now: Date) {
        for counter in counters.values { counter.sweep(now: now) }
    }

    var trackedKeys: Int { counters.values.map(\.trackedKeys).reduce(0, +) }
}

/// Failure counts in the database, shared by every instance on it (docs/contract.md §4): one
/// primary-key read per guarded request, one upsert per failure, and a delete only after a
/// success of a key that has failures. Counting is a fixed window per key, blocks double per
/// strike as in memory.
struct SharedFailureCounts: FailureCounts {
    let store: any AbuseCounterStore
    let limits: AbuseLimits

    func check(_ keys: [AbuseCounterKey], now: Date) async throws -> FailureCheck {
        check(keys, now: now, read: try await store.abuseCounters(keys))
    }

    func check(_ keys: [AbuseCounterKey], now: Date, read records: [AbuseCounterRecord]) -> FailureCheck {
        FailureCheck(
            retryAfter: records.compactMap { record in
                record.blockedUntil.flatMap { $0 > now ? $0.timeIntervalSince(now) : nil }
            }.max(),
            counted: Set(records.map(\.key)))
    }

    func keysToRead(_ keys: [AbuseCounterKey]) -> [AbuseCounterKey] { keys }

    func recordFailure(_ key: AbuseCounterKey, limit: Int, now: Date) async throws -> TimeInterval? {
        guard limit > 0 else { return nil }
        let record = try await store.recordAbuseFailure(
            key, now: now, window: limits.window.timeInterval,
            strikeMemoryStart: now.addingTimeInterval(-limits.maxBlock.timeInterval))
        guard record.failures >= limit else { return nil }
        let seconds = limits.block(afterStrikes: record.strikes)
        // Of instances reaching the limit together, one blocks; the others' failures were counted.
        let blocked = try await store.blockAbuseCounter(
            key, until: now.addingTimeInterval(seconds), ifFailuresAtLeast: limit, now: now)
        return blocked ? seconds : nil
    }

    func reset(_ key: AbuseCounterKey) async throws {
        try await store.deleteAbuseCounter(key)
    }

    func sweep(now: Date) async throws {
        try await store.purgeAbuseCounters(idleBefore: now.addingTimeInterval(-limits.forgetAfter.timeInterval))
    }

    var trackedKeys: Int { 0 }
}

extension AbuseLimits {
    /// The block after `strikes` earlier blocks: ``baseBlock`` doubled per strike, at most
    /// ``maxBlock``, in seconds (for `Date` arithmetic).
    func block(afterStrikes strikes: Int) -> TimeInterval {
        min(maxBlock.timeInterval, baseBlock.timeInterval * pow(2, Double(min(strikes, 30))))
    }

    /// How long after its last failure or block a key is forgotten: the longer of the window
    /// and the longest block (its failures or strikes count until then).
    var forgetAfter: Duration { max(maxBlock, window) }
}
