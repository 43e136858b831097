import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import UMFAWebAuthn
import X509

/// Keeps the FIDO metadata of `UMFA_METADATA_URL` fresh (docs/operators/metadata.md): downloads
/// the MDS3 BLOB at start and again at its `nextUpdate`, verifies each one against the
/// metadata root, and puts a newer one in ``live``, which every ceremony reads. A BLOB that
/// fails to download or verify, or is not newer than the one held, is refused with a warning
/// in the log, and the last good one is kept.
package final class MetadataRefresh: Sendable {
    /// The index ceremonies read (``AttestationTrustAnchors/liveMetadata``).
    package let live = LiveMetadata()
    let url: String
    /// ``url`` as logged: without user information, query or fragment, which may hold a secret.
    let loggedURL: String
    let root: Certificate
    let fetch: BoundedFetch
    let schedule: MetadataSchedule
    let now: @Sendable () -> Date
    private let state = Mutex(State())

    /// What a refresh has learnt so far.
    struct State {
        /// When the held BLOB was downloaded and verified.
        var fetchedAt: Date?
        /// Downloads in a row that failed or brought nothing newer.
        var misses = 0
        /// When to download next.
        var nextCheck = Date.distantPast
        var metrics: ServerMetrics?
    }

    /// Why a download was refused: the `reason` label of `umfa_metadata_refresh_failures_total`.
    enum Refusal: String, CaseIterable {
        /// No 200 answer with a body within the time allowed (connection, TLS, status, size).
        case download
        /// The JWS signature, its chain to the root at the time of download, or the payload.
        case verification
        /// A serial number below the one held.
        case older = "not_newer"
    }

    /// What one download did.
    enum Outcome: Equatable {
        case updated(serial: Int)
        case unchanged(serial: Int)
        case refused(Refusal)
        /// The server shut down during the download: nothing to count or log.
        case cancelled
    }

    /// The largest BLOB read: the FIDO Metadata Service's is a few megabytes.
    static let largest = 64 * 1024 * 1024

    /// A refresh for `settings`, whose ``MetadataSettings/url`` must be set.
    init(settings: MetadataSettings, url: String, now: @escaping @Sendable () -> Date) throws {
        self.url = url
        var shown = URLComponents(string: url)
        shown?.user = nil
        shown?.password = nil
        shown?.query = nil
        shown?.fragment = nil
        loggedURL = shown?.string ?? "the metadata URL"
        root = try settings.resolvedRoot()
        fetch = BoundedFetch(
            trustRoots: settings.downloadTrustRoots ?? [], onlyTrustRoots: settings.downloadTrustRoots != nil,
            timeout: .seconds(60), largest: Self.largest, accept: "application/jwt, */*", userAgent: "UMFA-Metadata/1")
        schedule = MetadataSchedule(retryInterval: settings.retryInterval)
        self.now = now
    }

    /// How often the loop wakes: to update the age gauge, and to download when due.
    var tickInterval: Duration { min(schedule.retryInterval, .seconds(15)) }

    /// The first download, before the server serves: a failure is logged and the server starts
    /// without metadata, retrying on the schedule.
    package func loadAtStart(logger: Logger) async {
        _ = await refresh(logger: logger)
    }

    /// The loop that downloads when due, as a service of the server's group.
    package func service(logger: Logger) -> some Service {
        MetadataRefreshService(refresh: self, logger: logger)
    }

    /// Sends the held BLOB's serial number, age and `nextUpdate` to `metrics` from now on.
    func report(to metrics: ServerMetrics) {
        state.withLock { $0.metrics = metrics }
        for refusal in Refusal.allCases { metrics.metadataRefreshFailed(refusal.rawValue, count: 0) }
        updateGauges()
    }

    /// One wake of the loop: the gauges, and a download when one is due.
    func tick(logger: Logger) async {
        updateGauges()
        let due = state.withLock { $0.nextCheck }
        if now() >= due { _ = await refresh(logger: logger) }
    }

    /// Downloads, verifies and, when newer, takes the BLOB; then schedules the next download.
    func refresh(logger: Logger) async -> Outcome {
        let outcome = await download(logger: logger)
        if outcome == .cancelled { return outcome }
        let time = now()
        let held = live.current
        let metrics = state.withLock { state in
            switch outcome {
            case .updated:
                state.fetchedAt = time
                state.misses = 0
            case .unchanged, .refused, .cancelled:
                state.misses += 1
            }
            state.nextCheck = schedule.nextCheck(
                heldNextUpdate: held?.nextUpdateDate, misses: state.misses, now: time)
            return state.metrics
        }
        if case .refused(let refusal) = outcome { metrics?.metadataRefreshFailed(refusal.rawValue, count: 1) }
        updateGauges()
        let next = state.withLock { $0.nextCheck }
        logger.debug("next FIDO metadata download", metadata: ["metadata.next_check": "\(next)"])
        return outcome
    }

    /// Steps 1 to 3 of one refresh; every refusal is logged with its reason, never the BLOB.
    private func download(logger: Logger) async -> Outcome {
        let held = live.current
        func refuse(_ refusal: Refusal, _ why: String) -> Outcome {
            logger.warning(
                "FIDO metadata refused: \(why); \(held.map { "keeping the BLOB with serial \($0.serialNumber)" } ?? "no metadata is in use")",
                metadata: ["metadata.url": "\(loggedURL)", "metadata.refusal": "\(refusal.rawValue)"])
            return .refused(refusal)
        }
        // Step 1: the BLOB, over https only, bounded in size and time.
        let body: ByteBuffer
        let fetched = await fetch.get(url)
        if Task.isCancelled { return .cancelled }
        switch fetched {
        case .success(let bytes): body = bytes
        case .failure(.status(let code)): return refuse(.download, "the download answered HTTP \(code)")
        case .failure(.tooLarge): return refuse(.download, "the BLOB is larger than \(Self.largest) bytes")
        case .failure(.timedOut): return refuse(.download, "the download took longer than 60 s")
        case .failure(.transport(let error)): return refuse(.download, "the download failed: \(error)")
        }
        // Step 2: its JWS signature and chain to the root, valid now (MDS 3.0 §3.1.8).
        let index: MetadataIndex
        do {
            index = try await MetadataIndex(blob: String(buffer: body), root: root, at: now())
        } catch {
            return refuse(.verification, error.message)
        }
        // Step 3: only a greater serial number replaces the BLOB held.
        switch MetadataSchedule.acceptance(downloaded: index.serialNumber, held: held?.serialNumber) {
        case .older:
            return refuse(
                .older, "its serial number \(index.serialNumber) is below \(held?.serialNumber ?? 0), the one held")
        case .same:
            logger.info(
                "FIDO metadata unchanged: no BLOB newer than serial \(index.serialNumber) yet",
                metadata: ["metadata.next_update": "\(index.nextUpdate)"])
            return .unchanged(serial: index.serialNumber)
        case .newer:
            live.replace(with: index)
            logger.info(
                "FIDO metadata loaded",
                metadata: [
                    "metadata.serial": "\(index.serialNumber)", "metadata.entries": "\(index.entries.count)",
                    "metadata.next_update": "\(index.nextUpdate)",
                ])
            return .updated(serial: index.serialNumber)
        }
    }

    /// The held BLOB's serial number, age and `nextUpdate`, when one is held.
    private func updateGauges() {
        let (metrics, fetchedAt) = state.withLock { ($0.metrics, $0.fetchedAt) }
        guard let metrics, let fetchedAt, let held = live.current else { return }
        metrics.metadataHeld(
            serial: held.serialNumber, age: now().timeIntervalSince(fetchedAt), nextUpdate: held.nextUpdateDate)
    }
}

/// ``MetadataRefresh``'s loop until the server shuts down.
struct MetadataRefreshService: Service {
    let refresh: MetadataRefresh
    let logger: Logger

    func run() async throws {
        await runPeriodically(every: refresh.tickInterval) { await refresh.tick(logger: logger) }
    }
}

extension ServerConfiguration {
    /// The refresh `UMFA_METADATA_URL` asks for, its index made the attestation anchors'
    /// metadata; `nil` without the URL.
    static func metadataRefresh(
        _ settings: MetadataSettings, anchors: inout AttestationTrustAnchors, now: @escaping @Sendable () -> Date
    ) throws -> MetadataRefresh? {
        guard let url = settings.url else { return nil }
        let refresh = try MetadataRefresh(settings: settings, url: url, now: now)
        anchors.liveMetadata = refresh.live
        return refresh
    }
}
