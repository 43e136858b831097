import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import UMFAWebAuthn
import X509

/// Keeps the FIDO metadata of `UMFA_METADATA_URL` fresh (docs/operators/metadata.md): starts
/// with the BLOB stored in the data directory (``MetadataBlobStore``), downloads the MDS3 BLOB
/// at start and again daily or by its `nextUpdate`, verifies each one against the metadata root,
/// and puts a newer one in ``live``, which every ceremony reads, and in the store. A BLOB that
/// fails to download or verify, or is older than the one held, is refused with a warning in the
/// log, and the last good one is kept.
package final class MetadataRefresh: Sendable {
    /// The index ceremonies read (``AttestationTrustAnchors/liveMetadata``).
    package let live = LiveMetadata()
    let url: String
    /// ``url`` as logged: without user information, query or fragment, which may hold a secret.
    let loggedURL: String
    let root: Certificate
    let fetch: BoundedFetch
    let schedule: MetadataSchedule
    let store: MetadataBlobStore
    let now: @Sendable () -> Date
    private let state = Mutex(State())
    /// The serial number last written to the ``store``, so that writes never go backwards.
    private let storedSerial = Mutex<Int?>(nil)

    /// What a refresh has learnt so far.
    struct State {
        /// When the held BLOB was downloaded and verified.
        var fetchedAt: Date?
        /// Downloads in a row that failed or brought nothing newer while no BLOB was held or the
        /// held one was past its `nextUpdate`.
        var misses = 0
        /// When to download next.
        var nextCheck = Date.distantPast
        var metrics: ServerMetrics?
    }

    /// Why a download was refused: the `reason` label of `umfa_metadata_refresh_failures_total`.
    enum Refusal: String, CaseIterable {
        /// No 200 answer with a body within the time allowed (connection, TLS, status, size).
        case download
        /// The JWS signature, its chain to the root at the time of download, or the payload
        /// (a `nextUpdate` that is not a date included).
        case verification
        /// A serial number below the one held.
        case older
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
    /// How long a scheduled download may take, and the first one, which the start waits for:
    /// short, so that a dead URL holds `/health` back by seconds, not a minute.
    static let downloadTimeout = Duration.seconds(60)
    static let startDownloadTimeout = Duration.seconds(10)

    /// A refresh for `settings`, whose ``MetadataSettings/url`` must be set, storing the last
    /// BLOB taken in `dataDirectory`.
    init(settings: MetadataSettings, url: String, dataDirectory: URL, now: @escaping @Sendable () -> Date) throws {
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
            timeout: .seconds(Self.downloadTimeout.components.seconds), largest: Self.largest,
            accept: "application/jwt, */*", userAgent: "UMFA-Metadata/1")
        schedule = MetadataSchedule(retryInterval: settings.retryInterval)
        store = MetadataBlobStore(dataDirectory: dataDirectory)
        self.now = now
    }

    /// How often the loop wakes: to update the age gauge, and to download when due.
    var tickInterval: Duration { min(schedule.retryInterval, .seconds(15)) }

    /// Before the server serves: the stored BLOB, verified again now, then the first download,
    /// within ``startDownloadTimeout``. A failed download is logged and the server starts with
    /// the stored BLOB, or without metadata, retrying on the schedule.
    package func loadAtStart(logger: Logger) async {
        await loadStored(logger: logger)
        _ = await refresh(logger: logger, timeout: Self.startDownloadTimeout)
    }

    /// Takes the BLOB of the ``store``, when there is one that still verifies against the root
    /// now; one that does not (its signer expired, another root named) is left aside with a
    /// warning, and the start goes on without it.
    func loadStored(logger: Logger) async {
        let stored: (blob: String, savedAt: Date)?
        do {
            stored = try store.read()
        } catch {
            logger.warning(
                "the stored FIDO metadata BLOB cannot be read; starting without it",
                metadata: ["metadata.file": "\(store.path.path)", "error": "\(error)"])
            return
        }
        guard let stored else { return }
        let index: MetadataIndex
        do {
            index = try await verify(stored.blob)
        } catch {
            logger.warning(
                "the stored FIDO metadata BLOB no longer verifies; starting without it: \(error.message)",
                metadata: ["metadata.file": "\(store.path.path)"])
            return
        }
        guard live.replace(ifNewer: index) == nil else { return }
        state.withLock { $0.fetchedAt = stored.savedAt }
        MetadataLog.loaded(index, source: "stored", logger: logger, now: now())
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
    func refresh(logger: Logger, timeout: Duration = MetadataRefresh.downloadTimeout) async -> Outcome {
        let outcome = await download(logger: logger, timeout: timeout)
        if outcome == .cancelled { return outcome }
        let time = now()
        let held = live.current
        let metrics = state.withLock { state in
            switch outcome {
            case .updated:
                state.fetchedAt = time
                state.misses = 0
            case .unchanged, .refused, .cancelled:
                // Before the held BLOB's nextUpdate the same serial number is the normal answer,
                // and a failure can wait for the daily check: neither grows the backoff.
                let isMiss = MetadataSchedule.isMiss(heldNextUpdate: held?.nextUpdateDate, now: time)
                state.misses = isMiss ? state.misses + 1 : 0
            }
            state.nextCheck = schedule.nextCheck(
                heldNextUpdate: held?.nextUpdateDate, misses: state.misses, now: time,
                jitter: Double.random(in: 0...1))
            return state.metrics
        }
        if case .refused(let refusal) = outcome { metrics?.metadataRefreshFailed(refusal.rawValue, count: 1) }
        updateGauges()
        let next = state.withLock { $0.nextCheck }
        logger.debug("next FIDO metadata download", metadata: ["metadata.next_check": "\(next)"])
        return outcome
    }

    /// Steps 1 to 4 of one refresh; every refusal is logged with its reason, never the BLOB.
    private func download(logger: Logger, timeout: Duration) async -> Outcome {
        func refuse(_ refusal: Refusal, _ why: String, held: MetadataIndex?) -> Outcome {
            logger.warning(
                "FIDO metadata refused: \(why); \(held.map { "keeping the BLOB with serial \($0.serialNumber)" } ?? "no metadata is in use")",
                metadata: ["metadata.url": "\(loggedURL)", "metadata.refusal": "\(refusal.rawValue)"])
            return .refused(refusal)
        }
        // Step 1: the BLOB, over https only, bounded in size and time.
        let body: ByteBuffer
        var bounded = fetch
        bounded.timeout = .seconds(timeout.components.seconds)
        let fetched = await bounded.get(url)
        if Task.isCancelled { return .cancelled }
        switch fetched {
        case .success(let bytes): body = bytes
        case .failure(.status(let code)):
            return refuse(.download, "the download answered HTTP \(code)", held: live.current)
        case .failure(.tooLarge):
            return refuse(.download, "the BLOB is larger than \(Self.largest) bytes", held: live.current)
        case .failure(.timedOut):
            return refuse(
                .download, "the download took longer than \(timeout.components.seconds) s", held: live.current)
        case .failure(.transport(let error)):
            return refuse(.download, "the download failed: \(error)", held: live.current)
        }
        // Step 2: its JWS signature and chain to the root, valid now, and its payload (MDS 3.0
        // §3.1.6 to §3.1.8).
        let blob = String(buffer: body)
        let index: MetadataIndex
        do {
            index = try await verify(blob)
        } catch {
            return refuse(.verification, error.message, held: live.current)
        }
        // Step 3: only a greater serial number replaces the BLOB held, compared and replaced at
        // once, so a concurrent refresh can never put an older BLOB back.
        let held = live.replace(ifNewer: index)
        switch MetadataSchedule.acceptance(downloaded: index.serialNumber, held: held?.serialNumber) {
        case .older:
            return refuse(
                .older, "its serial number \(index.serialNumber) is below \(held?.serialNumber ?? 0), the one held",
                held: held)
        case .same:
            logger.info(
                "FIDO metadata unchanged: no BLOB newer than serial \(index.serialNumber) yet",
                metadata: ["metadata.next_update": "\(index.nextUpdate)"])
            return .unchanged(serial: index.serialNumber)
        case .newer:
            MetadataLog.loaded(index, source: "url", logger: logger, now: now())
            // Step 4: kept for the next start, as its floor (docs/operators/metadata.md).
            save(blob, serial: index.serialNumber, logger: logger)
            return .updated(serial: index.serialNumber)
        }
    }

    /// A BLOB verified against the root now, whose `nextUpdate` is a date (FIDO MDS 3.0 §3.1.6
    /// requires it; without it no download could be scheduled by it).
    func verify(_ blob: String) async throws(WebAuthnError) -> MetadataIndex {
        let index = try await MetadataIndex(blob: blob, root: root, at: now())
        guard index.nextUpdateDate != nil else {
            throw WebAuthnError(
                .invalidMetadata, "metadata BLOB: nextUpdate \"\(index.nextUpdate)\" is not a date (YYYY-MM-DD)")
        }
        return index
    }

    /// Writes the BLOB just taken to the ``store``, unless a greater serial number was written
    /// meanwhile; a failure is logged, the BLOB stays in force until the server stops.
    private func save(_ blob: String, serial: Int, logger: Logger) {
        storedSerial.withLock { stored in
            guard serial > (stored ?? Int.min) else { return }
            do {
                try store.write(blob)
                stored = serial
            } catch {
                logger.warning(
                    "the FIDO metadata BLOB could not be stored; a restart will not start with it",
                    metadata: ["metadata.file": "\(store.path.path)", "error": "\(error)"])
            }
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
    /// The refresh `UMFA_METADATA_URL` asks for, storing its BLOB in `dataDirectory`, its index
    /// made the attestation anchors' metadata; `nil` without the URL.
    static func metadataRefresh(
        _ settings: MetadataSettings, dataDirectory: URL, anchors: inout AttestationTrustAnchors,
        now: @escaping @Sendable () -> Date
    ) throws -> MetadataRefresh? {
        guard let url = settings.url else { return nil }
        let refresh = try MetadataRefresh(settings: settings, url: url, dataDirectory: dataDirectory, now: now)
        anchors.liveMetadata = refresh.live
        return refresh
    }
}
