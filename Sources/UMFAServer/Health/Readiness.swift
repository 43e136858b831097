import Logging
import Synchronization
import UMFAStorage

/// Whether this instance should be sent requests (`GET /health/ready`, docs/operators/probes.md):
/// not while it drains after SIGTERM (``DrainService``), not while its database cannot be
/// reached or written. `/health` stays a liveness answer that never looks at the database.
///
/// The database is asked at most once a second however often the probe is called: callers
/// within a second of an answer share it, and callers while a probe runs wait for that one.
/// A probe that takes longer than ``probeTimeout`` counts as a database that cannot be reached.
package final class Readiness: Sendable {
    private enum State {
        /// No probe runs; the last answer and when it came.
        case idle(problem: String?, at: ContinuousClock.Instant?)
        /// A probe runs; callers wait for it.
        case probing(Task<String?, Never>)
    }

    /// The longest a probe may take.
    static let probeTimeout: Duration = .seconds(3)
    /// How long an answer is reused.
    static let reuse: Duration = .seconds(1)

    private let store: any UMFAStore
    private let logger: Logger
    private let draining = Atomic<Bool>(false)
    private let state = Mutex<State>(.idle(problem: nil, at: nil))
    /// Whether a probe's work still runs (it may outlast its caller's ``probeTimeout``): no
    /// other starts meanwhile, so probes that hang never pile up.
    private let working = Atomic<Bool>(false)
    /// Whether the last answer was "ready", for logging the changes only.
    private let wasReady = Atomic<Bool>(true)

    init(store: any UMFAStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// From now on the instance is not ready: it is shutting down.
    package func startDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// Why an instance is not ready, as anyone may be told: the details (which database error)
    /// go to the log only.
    enum NotReady: Sendable, Equatable {
        case draining
        case database

        var message: String {
            switch self {
            case .draining: "not ready: the server is shutting down"
            case .database: "not ready: the database cannot be reached or written"
            }
        }
    }

    /// Why the instance should not be sent requests now, or `nil` when it should.
    func notReady() async -> NotReady? {
        if draining.load(ordering: .relaxed) { return .draining }
        return await databaseProblem() == nil ? nil : .database
    }

    /// What keeps the database from being used now, or `nil`.
    private func databaseProblem() async -> String? {
        let now = ContinuousClock.now
        let waiting: Pending = state.withLock { state in
            switch state {
            case .idle(let problem, let at?) where now - at < Self.reuse:
                return .answer(problem)
            case .probing(let running):
                return .probe(running)
            case .idle:
                let running = Task { [self] in await probeOnce() }
                state = .probing(running)
                return .probe(running)
            }
        }
        switch waiting {
        case .answer(let problem): return problem
        case .probe(let running): return await running.value
        }
    }

    /// A reused answer, or the probe to wait for.
    private enum Pending {
        case answer(String?)
        case probe(Task<String?, Never>)
    }

    /// One probe, within ``probeTimeout``; records and logs its answer. While an earlier probe's
    /// work still runs (it timed out), the answer is that the database does not answer.
    private func probeOnce() async -> String? {
        let problem: String?
        if working.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            problem = await Self.within(Self.probeTimeout) { [self] in
                defer { working.store(false, ordering: .releasing) }
                do {
                    try await store.probe()
                    return nil
                } catch let error as StoreError {
                    return error.message
                } catch {
                    return "the database cannot be reached"
                }
            }
        } else {
            problem = "the last probe of the database has not ended"
        }
        state.withLock { $0 = .idle(problem: problem, at: .now) }
        let ready = problem == nil
        if wasReady.exchange(ready, ordering: .relaxed) != ready {
            if let problem {
                logger.warning("not ready: \(problem)")
            } else {
                logger.info("ready again: the database answers")
            }
        }
        return problem
    }

    /// `body`'s answer, or a timeout's when it takes longer than `limit` (`body` is then
    /// cancelled and left to end by itself).
    private static func within(
        _ limit: Duration, _ body: @escaping @Sendable () async -> String?
    ) async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let pending = Waiting(continuation)
            let work = Task {
                let answer = await body()
                pending.take()?.resume(returning: answer)
            }
            Task {
                try? await Task.sleep(for: limit)
                guard let waiting = pending.take() else { return }
                work.cancel()
                waiting.resume(returning: "the database did not answer within \(limit)")
            }
        }
    }

    /// A continuation the first of two tasks resumes.
    private final class Waiting: Sendable {
        private let continuation: Mutex<CheckedContinuation<String?, Never>?>

        init(_ continuation: CheckedContinuation<String?, Never>) {
            self.continuation = Mutex(continuation)
        }

        func take() -> CheckedContinuation<String?, Never>? {
            continuation.withLock { $0.take() }
        }
    }
}
