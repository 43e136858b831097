import Foundation

/// When the FIDO metadata BLOB is downloaded again (docs/operators/metadata.md), and whether a
/// downloaded one replaces the one held: pure decisions, apart from the clock they are given.
///
/// FIDO Metadata Service 3.0 §3.1.6 has the BLOB name its `nextUpdate`, the date by which a
/// newer one is published; the BLOB processing rules (§3.1.8) ignore a BLOB whose serial number
/// `no` is not greater than the one held.
struct MetadataSchedule: Sendable {
    /// The first wait after a download that failed or brought nothing newer.
    var retryInterval: Duration
    /// The longest wait for a `nextUpdate`: a BLOB naming a date years ahead is asked for again
    /// after this.
    static let longestWait: TimeInterval = 31 * 86_400
    /// The longest wait between retries.
    static let longestRetry: TimeInterval = 86_400

    /// The wait after `misses` downloads in a row that failed or brought nothing newer (0 right
    /// after a newer one): ``retryInterval``, doubling from the second miss on, up to 16 times
    /// it and never over ``longestRetry``.
    func retryDelay(misses: Int) -> TimeInterval {
        let base = Double(retryInterval.components.seconds) + Double(retryInterval.components.attoseconds) / 1e18
        let doublings = min(max(misses - 1, 0), 4)
        return min(base * Double(1 << doublings), Self.longestRetry)
    }

    /// When to download next, at `now`: at the held BLOB's `nextUpdate` while that is ahead (no
    /// download before it, and none later than ``longestWait``), else after ``retryDelay(misses:)``.
    /// Without a BLOB, or with one past its `nextUpdate`, every download that fails or brings
    /// nothing newer is a miss.
    func nextCheck(heldNextUpdate: Date?, misses: Int, now: Date) -> Date {
        if let next = heldNextUpdate, next > now {
            return min(next, now.addingTimeInterval(Self.longestWait))
        }
        return now.addingTimeInterval(retryDelay(misses: misses))
    }

    /// What to do with a verified BLOB of serial number `downloaded` while `held` is held.
    enum Acceptance: Equatable {
        /// Newer: it replaces the one held.
        case newer
        /// The one held, again: nothing changes.
        case same
        /// Older than the one held: refused, the held one stays (a server rolled back, or a
        /// replayed BLOB).
        case older
    }

    /// FIDO MDS 3.0 §3.1.8: a BLOB replaces the one held only with a greater serial number.
    static func acceptance(downloaded: Int, held: Int?) -> Acceptance {
        guard let held else { return .newer }
        if downloaded > held { return .newer }
        return downloaded == held ? .same : .older
    }
}
