import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// UMFA's pool of PostgreSQL connections on one event loop: at most ``maximum`` connections,
/// opened as statements need them and closed after ``PostgresPoolConfiguration/idleLifetime``
/// unused (within ``sweepPeriod(_:)`` of it).
///
/// A lease that finds an idle connection takes it under one lock, with no task, timer or
/// thread hop; PostgresNIO's own pool started a timer on every return of a connection (a
/// sleeping task, run by Dispatch's threads), which took about a tenth of the server's CPU on
/// a PostgreSQL sign-in (docs/performance/README.md). Here one repeating timer per pool closes
/// idle connections, and a timer exists per lease only while the lease waits.
///
/// A lease waits, first come first served, when every connection is busy; it ends with a
/// connection, or with the right to open one (a connection returned closed frees its place),
/// at its deadline, or when its task is cancelled. A connection that cannot be opened while the
/// database is out of reach (restarting) is tried again until the lease's deadline, each
/// attempt bounded by it; a refusal (a wrong password, a certificate not trusted) fails at
/// once. A connection returned closed is forgotten, and its place handed on.
final class LoopConnectionPool: Sendable {
    /// The loop the pool's connections and timers run on.
    let loop: any EventLoop
    /// Most connections open at once.
    let maximum: Int
    private let configuration: PostgresPoolConfiguration
    private let logger: Logger
    private let state = Mutex(State())
    private let sweeper: Mutex<RepeatedTask?>

    private struct Waiter {
        let continuation: CheckedContinuation<Grant, any Error>
        let timer: Scheduled<Void>?
    }

    /// What a lease gets: a connection, or a place to open one in.
    private enum Grant {
        case connection(PostgresConnection)
        case place
    }

    private struct State {
        /// Idle connections, the least recently returned first.
        var idle: [(connection: PostgresConnection, since: NIODeadline)] = []
        /// Connections open, opening or leased.
        var open = 0
        var waiters: [UInt64: Waiter] = [:]
        /// The waiters' ids in arrival order; an id no longer in ``waiters`` is skipped.
        var order = CircularBuffer<UInt64>()
        var nextWaiter: UInt64 = 0
        var closed = false

        /// The longest-waiting waiter, taken off the list.
        mutating func firstWaiter() -> Waiter? {
            while let id = order.popFirst() {
                if let waiter = waiters.removeValue(forKey: id) { return waiter }
            }
            return nil
        }
    }

    init(configuration: PostgresPoolConfiguration, maximum: Int, loop: any EventLoop, logger: Logger) {
        self.configuration = configuration
        self.maximum = max(1, maximum)
        self.loop = loop
        self.logger = logger
        sweeper = Mutex(nil)
        let lifetime = TimeAmount(configuration.idleLifetime)
        let period = Self.sweepPeriod(lifetime)
        let task = loop.scheduleRepeatedTask(initialDelay: period, delay: period) { [weak self] _ in
            self?.closeIdle(olderThan: NIODeadline.now() - lifetime)
        }
        sweeper.withLock { $0 = task }
    }

    deinit {
        sweeper.withLock { $0 }?.cancel()
    }

    /// How often idle connections are looked at: a tenth of their lifetime, 100 ms to a second,
    /// so one closes within a second of its lifetime.
    static func sweepPeriod(_ lifetime: TimeAmount) -> TimeAmount {
        .nanoseconds(min(max(lifetime.nanoseconds / 10, 100_000_000), 1_000_000_000))
    }

    /// A connection for the caller, who returns it with ``release(_:)``; waits at most until
    /// `deadline`, then throws `timeout`.
    func lease(until deadline: NIODeadline, timeout: @autoclosure () -> any Error) async throws -> PostgresConnection {
        switch try await grant(until: deadline, timeout: timeout()) {
        case .connection(let connection): return connection
        case .place: return try await connect(until: deadline, timeout: timeout())
        }
    }

    /// Takes `connection` back: to the longest-waiting lease, or to the idle ones. A closed
    /// connection is forgotten and its place given to a waiting lease.
    func release(_ connection: PostgresConnection) {
        enum Next {
            case hand(Waiter, Grant)
            case close
            case none
        }
        let next: Next = state.withLock { state in
            if state.closed {
                state.open -= 1
                return .close
            }
            if connection.isClosed {
                guard let waiter = state.firstWaiter() else {
                    state.open -= 1
                    return .none
                }
                return .hand(waiter, .place)
            }
            guard let waiter = state.firstWaiter() else {
                state.idle.append((connection, .now()))
                return .none
            }
            return .hand(waiter, .connection(connection))
        }
        switch next {
        case .hand(let waiter, let grant):
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: grant)
        case .close:
            connection.close().whenComplete { _ in }
        case .none:
            break
        }
    }

    /// Refuses every later lease, fails those waiting, closes the idle connections and stops
    /// the idle timer; a leased connection closes when it is returned.
    func shutdown() async {
        sweeper.withLock { $0 }?.cancel()
        let (idle, waiters) = state.withLock { state in
            state.closed = true
            state.open -= state.idle.count
            defer {
                state.idle = []
                state.waiters = [:]
                state.order.removeAll()
            }
            return (state.idle.map(\.connection), Array(state.waiters.values))
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(throwing: Self.closedError)
        }
        for connection in idle { try? await connection.close() }
    }

    /// An idle connection, a place to open one, or a wait for either.
    private func grant(until deadline: NIODeadline, timeout: @autoclosure () -> any Error) async throws -> Grant {
        enum Now {
            case ready(Grant)
            case failed(any Error)
        }
        func take(_ state: inout State) -> Now? {
            if state.closed { return .failed(Self.closedError) }
            while let (connection, _) = state.idle.popLast() {
                if !connection.isClosed { return .ready(.connection(connection)) }
                state.open -= 1
            }
            if state.open < maximum {
                state.open += 1
                return .ready(.place)
            }
            return nil
        }
        let id: UInt64
        switch state.withLock({ take(&$0) }) {
        case .ready(let grant)?: return grant
        case .failed(let error)?: throw error
        case nil:
            id = state.withLock {
                $0.nextWaiter += 1
                return $0.nextWaiter
            }
        }
        let timeoutError = timeout()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now: Now? = state.withLock { state in
                    // Checked again under the lock the releases take: a connection returned
                    // since the first look is not left idle while this lease waits.
                    if let now = take(&state) { return now }
                    if Task.isCancelled { return .failed(CancellationError()) }
                    let timer = loop.scheduleTask(deadline: deadline) { [weak self] () -> Void in
                        self?.fail(waiter: id, with: timeoutError)
                    }
                    state.waiters[id] = Waiter(continuation: continuation, timer: timer)
                    state.order.append(id)
                    return nil
                }
                switch now {
                case .ready(let grant)?: continuation.resume(returning: grant)
                case .failed(let error)?: continuation.resume(throwing: error)
                case nil: break
                }
            }
        } onCancel: {
            fail(waiter: id, with: CancellationError())
        }
    }

    /// Ends the wait of lease `id` with `error`, when it still waits.
    private func fail(waiter id: UInt64, with error: any Error) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(throwing: error)
    }

    /// Opens a connection in a place this lease holds, trying again after a pause while the
    /// database is out of reach (``mayConnectLater(_:)``), each attempt bounded by `deadline`;
    /// the place is given up when no connection comes. A refusal fails at once, with its cause.
    private func connect(until deadline: NIODeadline, timeout: @autoclosure () -> any Error) async throws
        -> PostgresConnection
    {
        var pause = TimeAmount.milliseconds(50)
        var lastCause: (any Error)?
        while true {
            let remaining = deadline - .now()
            if state.withLock({ $0.closed }) {
                giveUpPlace()
                throw Self.closedError
            }
            guard remaining > .zero else {
                giveUpPlace()
                if let lastCause {
                    logger.warning("PostgreSQL: no connection could be opened: \(Self.describe(lastCause))")
                }
                throw timeout()
            }
            var attempt = configuration.connection
            attempt.options.connectTimeout = min(attempt.options.connectTimeout, remaining)
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(
                    on: loop, configuration: attempt, id: Self.nextID(), logger: logger)
            } catch let error as PSQLError where Self.mayConnectLater(error) && !Task.isCancelled {
                lastCause = error
                do {
                    try await Task.sleep(for: .nanoseconds(max(0, min(pause, deadline - .now()).nanoseconds)))
                } catch {
                    giveUpPlace()
                    throw error
                }
                pause = .nanoseconds(min(pause.nanoseconds * 2, TimeAmount.seconds(1).nanoseconds))
                continue
            } catch {
                giveUpPlace()
                throw error
            }
            // Shut down or cancelled meanwhile: the connection goes back (closed by a pool shut
            // down), and its place with it.
            if state.withLock({ $0.closed }) || Task.isCancelled {
                release(connection)
                throw Task.isCancelled ? CancellationError() : Self.closedError
            }
            return connection
        }
    }

    /// Whether a connection that could not be opened may be opened later: the database out of
    /// reach (refused, reset, timed out, its socket missing), starting or stopping (57P), out of
    /// connections (53300), or a connection exception (08). A TLS failure or the server's
    /// refusal (a wrong password, an unknown database) is not waited for.
    static func mayConnectLater(_ error: PSQLError) -> Bool {
        switch error.code {
        case .connectionError:
            let underlying = error.underlying
            return !(underlying is NIOSSLError || underlying is BoringSSLError || underlying is NIOSSLExtraError)
        case .serverClosedConnection, .uncleanShutdown:
            return true
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("57P") || state.hasPrefix("08") || state == "53300"
        default:
            return false
        }
    }

    /// A failed connect for the log: the driver's code and what lies under it (an address
    /// refused, a name not found); never the password, which no such error holds.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return PostgresExecutor.storeError(error).message }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return PostgresExecutor.storeError(error).message
    }

    /// Frees a place no connection was opened in, for the longest-waiting lease to try.
    private func giveUpPlace() {
        let waiter: Waiter? = state.withLock { state in
            guard !state.closed, let waiter = state.firstWaiter() else {
                state.open -= 1
                return nil
            }
            return waiter
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume(returning: .place)
    }

    /// Closes the connections idle since before `cutoff`.
    private func closeIdle(olderThan cutoff: NIODeadline) {
        let stale: [PostgresConnection] = state.withLock { state in
            let count = state.idle.prefix { $0.since < cutoff }.count
            guard count > 0 else { return [] }
            defer {
                state.idle.removeFirst(count)
                state.open -= count
            }
            return state.idle.prefix(count).map(\.connection)
        }
        for connection in stale { connection.close().whenComplete { _ in } }
    }

    private static let ids = Atomic<Int>(0)

    /// A number for the next connection's log lines.
    private static func nextID() -> Int { ids.wrappingAdd(1, ordering: .relaxed).newValue }

    static var closedError: StoreError { StoreError(.unavailable, "PostgreSQL: the store is closed") }
}
