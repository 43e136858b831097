import Foundation

/// When the FIDO metadata BLOB is downloaded again (docs/operators/metadata.md), and whether a
/// downloaded one replaces the one held: pure decisions, apart from the clock and the random
/// jitter they are given.
///
/// FIDO Metadata Service 3.0 §3.1.6 has the BLOB name its `nextUpdate`, the date by which a
/// newer one is published at the latest, so the next download should come by then, not after;
/// the processing rules (§3.1.8) ignore a BLOB whose serial number `no` is not greater than the
/// one held.
struct MetadataSchedule: Sendable {
    /// The first wait after a download that failed or brought nothing newer once the held BLOB
    /// is past its `nextUpdate`, or while none is held.
    var retryInterval: Duration
    /// The longest wait while the held BLOB's `nextUpdate` is ahead: UMFA still asks daily, so a
    /// BLOB published early (a model newly revoked) is taken within a day.
    static let longestWait: TimeInterval = 86_400
    /// The longest wait between retries.
    static let longestRetry: TimeInterval = 86_400
    /// The largest share of a wait taken off at random, so instances started together do not all
    /// download at the same instant, and its cap.
    static let jitterShare = 0.1
    static let longestJitter: TimeInterval = 3_600

    /// The wait after `misses` downloads in a row that failed or brought nothing newer (0 right
    /// after a BLOB was taken): ``retryInterval`` for 0 or 1, doubling with each further miss, up
    /// to 16 times it and never over ``longestRetry``.
    func retryDelay(misses: Int) -> TimeInterval {
        let base = Double(retryInterval.components.seconds) + Double(retryInterval.components.attoseconds) / 1e18
        let doublings = min(max(misses - 1, 0), 4)
        return min(base * Double(1 << doublings), Self.longestRetry)
    }

    /// Whether a download that failed or brought nothing newer counts towards the backoff: only
    /// when no BLOB is held or the held one is past its `nextUpdate`. Before it, the same serial
    /// number again is what a metadata service normally answers.
    static func isMiss(heldNextUpdate: Date?, now: Date) -> Bool {
        guard let next = heldNextUpdate else { return true }
        return next <= now
    }

    /// When to download next, at `now`: while the held BLOB's `nextUpdate` is ahead, at it but
    /// no later than ``longestWait`` from now; else after ``retryDelay(misses:)``. Each wait is
    /// shortened by `jitter` (from 0 to 1) times ``jitterShare`` of it, at most
    /// ``longestJitter``, so the download never comes after `nextUpdate` nor more than a day apart.
    func nextCheck(heldNextUpdate: Date?, misses: Int, now: Date, jitter: Double) -> Date {
        let wait: TimeInterval
        if let next = heldNextUpdate, next > now {
            wait = min(next.timeIntervalSince(now), Self.longestWait)
        } else {
            wait = retryDelay(misses: misses)
        }
        let shortened = min(wait * Self.jitterShare, Self.longestJitter) * min(max(jitter, 0), 1)
        return now.addingTimeInterval(wait - shortened)
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
