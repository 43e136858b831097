import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Who runs the connection pools. `PostgresClient.run()` runs once per client, for as long as
/// its caller's task lasts; each of these runs pools of its own (``LoopPools``) and makes them
/// the ones statements lease from meanwhile:
/// - the server's service group, through ``run()``, until graceful shutdown (put the executor
///   first in the group, so it stops after everything that still uses the store);
/// - start-up work before the service group runs (migrations, bootstrap), inside
///   ``withPool(_:)``;
/// - tools and tests without a service group, through ``startStandalone()`` until ``close()``.
extension PostgresExecutor: Service {
    /// Runs a pool until graceful shutdown or cancellation: the server's
    /// (``PostgresConnectionSettings/openConnectionsOnDemand(_:)``).
    func run() async throws {
        try await withPool {
            try? await gracefulShutdown()
        }
    }

    /// Runs `body` with a pool of its own running, shut down when `body` ends: one client per
    /// event loop (``LoopPools``), sharing the configured connection count.
    func withPool<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        let pools = LoopPools(configuration: configuration, logger: logger)
        return try await withThrowingDiscardingTaskGroup { group in
            for client in pools.clients {
                group.addTask { await client.run() }
            }
            pool.install(pools)
            defer { pool.remove(pools) }
            do {
                let result = try await body()
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// Runs the pool in a task of its own until ``close()``: for tools and tests that open a
    /// store without a service group (``PostgresStore/open(url:logger:)``).
    func startStandalone() {
        standaloneRunner.withLock { runner in
            guard runner == nil else { return }
            runner = Task {
                try? await self.withPool {
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                }
            }
        }
    }

    /// Refuses further statements and stops the pool ``startStandalone()`` started; under a
    /// service group, the pool stops at graceful shutdown.
    func close() async throws {
        pool.close()
        let runner = standaloneRunner.withLock { runner in
            defer { runner = nil }
            return runner
        }
        runner?.cancel()
        await runner?.value
    }
}

/// One run's connection pools: a `PostgresClient` per event loop of the group PostgresNIO runs
/// on (NIO's singleton, which `umfa serve` also makes Swift's global executor), with the
/// configured connection count shared between them.
///
/// A statement leases from the pool of the event loop its task runs on, so its connection's
/// reads, writes and the task's resumption stay on one thread: with one shared pool, half the
/// statements on two loops went out on the other loop's connection and came back to the task
/// through a thread switch in each direction. A task on no event loop (tools, tests) takes the
/// pools in turn.
final class LoopPools: Sendable {
    private let members: [(loop: ObjectIdentifier, client: PostgresClient)]
    private let turn = Atomic<Int>(0)

    /// At most one pool per connection: `maximumConnections` 1 on two loops is one pool.
    init(
        configuration: PostgresClient.Configuration, logger: Logger, group: MultiThreadedEventLoopGroup = .singleton
    ) {
        let loops = Array(group.makeIterator())
        let shares = Self.shares(of: configuration.options, loops: loops.count)
        members = zip(loops, shares).map { loop, options in
            var share = configuration
            share.options = options
            return (
                ObjectIdentifier(loop),
                PostgresClient(configuration: share, eventLoopGroup: loop, backgroundLogger: logger)
            )
        }
    }

    /// Each pool's options when `options.maximumConnections` is shared by `loops` pools (one
    /// per loop, at most one per connection).
    static func shares(of options: PostgresClient.Configuration.Options, loops: Int)
        -> [PostgresClient.Configuration.Options]
    {
        let total = max(1, options.maximumConnections)
        let count = min(total, max(1, loops))
        return (0..<count).map { index in
            var share = options
            share.maximumConnections = total / count + (index < total % count ? 1 : 0)
            share.minimumConnections = min(share.minimumConnections, share.maximumConnections)
            return share
        }
    }

    /// Every client, to run.
    var clients: [PostgresClient] { members.map(\.client) }

    /// The pool of the current thread's event loop, or the next in turn off the loops.
    func client() -> PostgresClient {
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop {
            let id = ObjectIdentifier(loop)
            for member in members where member.loop == id { return member.client }
        }
        let index = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        return members[(index & Int.max) % members.count].client
    }
}

/// The pools statements lease connections from: those a running ``PostgresExecutor/withPool(_:)``
/// put up. Between two runs (start-up work done, service group not yet running) a statement
/// waits for the next; once closed, statements fail at once.
final class PoolSlot: Sendable {
    private struct State {
        var pools: LoopPools?
        var closed = false
        var waiters: [UInt64: CheckedContinuation<LoopPools, any Error>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A client of the running pools (``LoopPools/client()``), waited for while none runs;
    /// cancellation ends the wait.
    func client() async throws -> PostgresClient {
        try await pools().client()
    }

    private func pools() async throws -> LoopPools {
        let (ready, id): (Result<LoopPools, any Error>?, UInt64) = state.withLock { state in
            if state.closed { return (.failure(Self.closedError), 0) }
            if let pools = state.pools { return (.success(pools), 0) }
            state.nextWaiter += 1
            return (nil, state.nextWaiter)
        }
        if let ready { return try ready.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<LoopPools, any Error>? = state.withLock { state in
                    if state.closed { return .failure(Self.closedError) }
                    if let pools = state.pools { return .success(pools) }
                    // Cancelled before the handler could find this waiter: do not wait.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Makes `pools` those statements use, and hands them to those waiting.
    func install(_ pools: LoopPools) {
        let waiters = state.withLock { state in
            state.pools = pools
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume(returning: pools) }
    }

    /// Forgets `pools` when they are the current ones (their run is ending).
    func remove(_ pools: LoopPools) {
        state.withLock { state in
            if state.pools === pools { state.pools = nil }
        }
    }

    /// Refuses every later statement, and fails those waiting.
    func close() {
        let waiters = state.withLock { state in
            state.closed = true
            state.pools = nil
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume(throwing: Self.closedError) }
    }

    private static var closedError: StoreError { StoreError(.unavailable, "PostgreSQL: the store is closed") }
}
