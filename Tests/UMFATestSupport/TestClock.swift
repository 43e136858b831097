import Foundation
import Synchronization

/// A clock tests move by hand, so expiry is tested without sleeping.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// A clock showing `start` (2026-01-01T00:00:00Z unless told).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        current = Mutex(start)
    }

    /// The time it shows.
    public var now: Date { current.withLock { $0 } }

    /// Moves it on by `seconds` (back, when negative).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
