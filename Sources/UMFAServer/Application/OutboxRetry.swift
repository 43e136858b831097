import Foundation

/// When the outboxes (webhooks, mail) try a failed delivery again: after each step of
/// ``backoff`` in turn, about ten hours in all; after the last, the delivery is dropped.
enum OutboxRetry {
    /// Seconds to wait after the n-th failed attempt.
    static let backoff: [TimeInterval] = [5, 15, 60, 300, 900, 3600, 3 * 3600, 6 * 3600]

    /// When to try again after `attempts` failed attempts; `nil` when they have run out.
    static func next(after attempts: Int, from now: Date) -> Date? {
        guard (1...backoff.count).contains(attempts) else { return nil }
        return now.addingTimeInterval(backoff[attempts - 1])
    }
}
