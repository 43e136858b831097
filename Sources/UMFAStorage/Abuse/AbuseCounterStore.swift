import Foundation

/// One abuse counter: which limit (`counter`, such as `user` or `address`) and whose failures
/// (`key`, a fixed-size hash the server makes; never a secret or a raw identifier).
package struct AbuseCounterKey: Sendable, Hashable {
    /// The limit the key counts against.
    package var counter: String
    /// The hashed caller key.
    package var key: String

    /// Creates a key.
    package init(counter: String, key: String) {
        self.counter = counter
        self.key = key
    }
}

/// The stored state of one abuse counter.
package struct AbuseCounterRecord: Sendable, Equatable {
    /// The counter and key.
    package var key: AbuseCounterKey
    /// Failures since ``windowStart``.
    package var failures: Int
    /// When the current counting window began.
    package var windowStart: Date
    /// Until when the key is blocked, if it was blocked.
    package var blockedUntil: Date?
    /// How many blocks the key has had; the next one lasts `baseBlock * 2^strikes`.
    package var strikes: Int
    /// The last failure.
    package var lastSeen: Date

    /// Creates a record.
    package init(
        key: AbuseCounterKey, failures: Int, windowStart: Date, blockedUntil: Date?, strikes: Int, lastSeen: Date
    ) {
        self.key = key
        self.failures = failures
        self.windowStart = windowStart
        self.blockedUntil = blockedUntil
        self.strikes = strikes
        self.lastSeen = lastSeen
    }
}

/// Abuse counters kept in the database, so every server instance on it counts the same
/// failures (docs/contract.md §4): N instances do not give an attacker N times the budget.
///
/// Each statement is atomic on its own; counting is a fixed window per key (the window starts
/// at the key's first failure and restarts after ``AbuseCounterRecord/windowStart`` + window).
package protocol AbuseCounterStore: Sendable {
    /// The stored counters among `keys` (absent keys have no failures).
    func abuseCounters(_ keys: [AbuseCounterKey]) async throws -> [AbuseCounterRecord]
    /// Counts one failure of `key` at `now` in one statement and returns the counter after it.
    /// A window that began `window` or more before `now` restarts at 1; strikes are forgotten
    /// when the key was quiet (no failure, no block) since `strikeMemoryStart`.
    func recordAbuseFailure(_ key: AbuseCounterKey, now: Date, window: TimeInterval, strikeMemoryStart: Date)
        async throws -> AbuseCounterRecord
    /// Blocks `key` until `until`, adds a strike and restarts its count, when it still has at
    /// least `failures` failures; `false` when another instance blocked it first.
    func blockAbuseCounter(_ key: AbuseCounterKey, until: Date, ifFailuresAtLeast failures: Int, now: Date)
        async throws -> Bool
    /// Forgets `key` (its holder proved itself).
    func deleteAbuseCounter(_ key: AbuseCounterKey) async throws
    /// Forgets counters whose last failure, and the end of whose last block, were before
    /// `idleBefore` (the sweep passes the longer of the window and the longest block ago).
    func purgeAbuseCounters(idleBefore: Date) async throws
}
