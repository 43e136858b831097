import Foundation
import Synchronization

/// Counts failures per key in a window and blocks a key that reaches its limit, for a time
/// that doubles with each block up to a maximum. Thread-safe; time comes from the caller so
/// tests use a fixed clock.
final class FailureCounter: Sendable {
    private struct Entry {
        var failures: [Date] = []
        var blockedUntil: Date?
        /// How many blocks this key has had; the next one lasts `baseBlock * 2^strikes`.
        var strikes = 0
        var lastSeen: Date
    }

    private let limit: Int
    private let limits: AbuseLimits
    private let entries = Mutex<[String: Entry]>([:])

    /// - Parameter limit: failures within the window that block the key; 0 never blocks.
    init(limit: Int, limits: AbuseLimits) {
        self.limit = limit
        self.limits = limits
    }

    /// How many seconds `key` must still wait, or `nil` when it may try now.
    func retryAfter(_ key: String, now: Date) -> TimeInterval? {
        guard limit > 0 else { return nil }
        return entries.withLock { entries in
            guard let until = entries[key]?.blockedUntil, until > now else { return nil }
            return until.timeIntervalSince(now)
        }
    }

    /// Counts a failure; returns the block in seconds when this failure reached the limit.
    @discardableResult
    func recordFailure(_ key: String, now: Date) -> TimeInterval? {
        guard limit > 0 else { return nil }
        return entries.withLock { entries in
            if entries[key] == nil, entries.count >= limits.maxTrackedKeys { Self.prune(&entries, now: now, limits) }
            var entry = entries[key] ?? Entry(lastSeen: now)
            // A key quiet for the longest block after its last block or failure starts over: old
            // strikes do not follow a user forever.
            let quietSince = max(entry.lastSeen, entry.blockedUntil ?? entry.lastSeen)
            if now.timeIntervalSince(quietSince) >= limits.maxBlock.timeInterval { entry.strikes = 0 }
            entry.lastSeen = now
            entry.failures = entry.failures.filter { now.timeIntervalSince($0) < limits.window.timeInterval } + [now]
            var block: TimeInterval?
            if entry.failures.count >= limit {
                let seconds = limits.block(afterStrikes: entry.strikes)
                entry.blockedUntil = now.addingTimeInterval(seconds)
                entry.strikes += 1
                entry.failures = []
                block = seconds
            }
            entries[key] = entry
            return block
        }
    }

    /// Forgets `key` after a success: its holder proved itself.
    func reset(_ key: String) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Forgets keys whose block and strike memory have passed.
    func sweep(now: Date) {
        entries.withLock { Self.dropForgotten(&$0, now: now, limits) }
    }

    /// Keeps the keys still blocked, or seen or unblocked within the window or the longest block
    /// (their failures or strikes still count: strikes are remembered for the longest block after
    /// a block ends, ``recordFailure(_:now:)``).
    private static func dropForgotten(_ entries: inout [String: Entry], now: Date, _ limits: AbuseLimits) {
        entries = entries.filter { _, entry in
            let quietSince = max(entry.lastSeen, entry.blockedUntil ?? entry.lastSeen)
            return (entry.blockedUntil.map { $0 > now } ?? false)
                || now.timeIntervalSince(quietSince) < limits.forgetAfter.timeInterval
        }
    }

    /// The number of keys tracked, for tests of the memory bound.
    var trackedKeys: Int { entries.withLock { $0.count } }

    /// Drops keys whose block and strike memory have passed; when that is not enough, the
    /// least recently seen half of the keys that are not blocked (blocked keys stay blocked).
    private static func prune(_ entries: inout [String: Entry], now: Date, _ limits: AbuseLimits) {
        func isBlocked(_ entry: Entry) -> Bool { entry.blockedUntil.map { $0 > now } ?? false }
        dropForgotten(&entries, now: now, limits)
        guard entries.count >= limits.maxTrackedKeys else { return }
        let half = limits.maxTrackedKeys / 2
        var kept = entries.filter { isBlocked($1) }
        let room = max(0, half - kept.count)
        for (key, entry) in entries.filter({ !isBlocked($1) }).sorted(by: { $0.value.lastSeen > $1.value.lastSeen })
            .prefix(room)
        {
            kept[key] = entry
        }
        if kept.count >= limits.maxTrackedKeys {
            kept = Dictionary(
                uniqueKeysWithValues: kept.sorted { $0.value.lastSeen > $1.value.lastSeen }.prefix(half).map {
                    ($0.key, $0.value)
                })
        }
        entries = kept
    }
}
