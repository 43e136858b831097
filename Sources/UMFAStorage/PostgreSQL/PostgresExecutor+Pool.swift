import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Who runs the connection pools. Each run makes pools of its own (``LoopPools``) the ones
/// statements lease from, and closes their connections when it ends:
/// - the server's service group, through ``run()``, until graceful shutdown (put the executor
///   first in the group, so it stops after everything that still uses the store);
/// - start-up work before the service group runs (migrations, bootstrap), inside
///   ``withPool(_:)``;
/// - tools and tests without a service group, through ``startStandalone()`` until ``close()``.
extension PostgresExecutor: Service {
    /// Runs a pool until graceful shutdown or cancellation: the server's.
    func run() async throws {
        try await withPool {
            try? await gracefulShutdown()
        }
    }

    /// Runs `body` with pools of its own (``LoopPools``), shut down when `body` ends.
    func withPool<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        let pools = LoopPools(configuration: configuration, logger: logger)
        pool.install(pools)
        let result: Result
        do {
            result = try await body()
        } catch {
            pool.remove(pools)
            await pools.shutdown()
            throw error
        }
        pool.remove(pools)
        await pools.shutdown()
        return result
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

/// One run's connection pools: a ``LoopConnectionPool`` per event loop of NIO's singleton
/// group (which `umfa serve` also makes Swift's global executor), with the configured
/// connection count shared between them.
///
/// A statement leases from the pool of the event loop its task runs on, so its connection's
/// reads, writes and the task's resumption stay on one thread: with one shared pool, half the
/// statements on two loops went out on the other loop's connection and came back to the task
/// through a thread switch in each direction. A task on no event loop (tools, tests) takes the
/// pools in turn.
final class LoopPools: Sendable {
    private let members: [(loop: ObjectIdentifier, pool: LoopConnectionPool)]
    private let turn = Atomic<Int>(0)

    /// At most one pool per connection: `maximumConnections` 1 on two loops is one pool.
    init(configuration: PostgresPoolConfiguration, logger: Logger, group: MultiThreadedEventLoopGroup = .singleton) {
        let loops = Array(group.makeIterator())
        let shares = Self.shares(of: configuration.maximumConnections, loops: loops.count)
        members = zip(loops, shares).map { loop, share in
            (
                ObjectIdentifier(loop),
                LoopConnectionPool(configuration: configuration, maximum: share, loop: loop, logger: logger)
            )
        }
    }

    /// Each pool's most connections when `total` are shared by `loops` pools (one per loop, at
    /// most one per connection).
    static func shares(of total: Int, loops: Int) -> [Int] {
        let total = max(1, total)
        let count = min(total, max(1, loops))
        return (0..<count).map { index in total / count + (index < total % count ? 1 : 0) }
    }

    /// The pool of the current thread's event loop, or the next in turn off the loops.
    func pool() -> LoopConnectionPool {
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop {
            let id = ObjectIdentifier(loop)
            for member in members where member.loop == id { return member.pool }
        }
        let index = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        return members[(index & Int.max) % members.count].pool
    }

    /// Shuts every pool down (``LoopConnectionPool/shutdown()``).
    func shutdown() async {
        for member in members { await member.pool.shutdown() }
    }
}

/// The pools statements lease connections from: those a running ``PostgresExecutor/withPool(_:)``
/// put up. Between two runs (start-up work done, service group not yet running) a statement
/// waits for the next; once closed, statements fail at once.
final class PoolSlot: Sendable {
    private struct State {
        var pools: LoopPools?
        var closed = false
        var waiters: [UInt64: (continuation: CheckedContinuation<LoopPools, any Error>, timer: Scheduled<Void>)] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The pool of the running pools for this task (``LoopPools/pool()``), waited for while
    /// none runs, at most until `deadline` (then `timeout` is thrown); cancellation ends the wait.
    func pool(until deadline: NIODeadline, timeout: @autoclosure () -> any Error) async throws -> LoopConnectionPool {
        let (ready, id): (Result<LoopPools, any Error>?, UInt64) = state.withLock { state in
            if state.closed { return (.failure(Self.closedError), 0) }
            if let pools = state.pools { return (.success(pools), 0) }
            state.nextWaiter += 1
            return (nil, state.nextWaiter)
        }
        if let ready { return try ready.get().pool() }
        let timeoutError = timeout()
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.any()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<LoopPools, any Error>? = state.withLock { state in
                    if state.closed { return .failure(Self.closedError) }
                    if let pools = state.pools { return .success(pools) }
                    // Cancelled before the handler could find this waiter: do not wait.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    let timer = loop.scheduleTask(deadline: deadline) { [weak self] () -> Void in
                        self?.fail(waiter: id, with: timeoutError)
                    }
                    state.waiters[id] = (continuation, timer)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            fail(waiter: id, with: CancellationError())
        }.pool()
    }

    /// Ends the wait of `id` with `error`, when it still waits.
    private func fail(waiter id: UInt64, with error: any Error) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.timer.cancel()
        waiter.continuation.resume(throwing: error)
    }

    /// Makes `pools` those statements use, and hands them to those waiting.
    func install(_ pools: LoopPools) {
        let waiters = state.withLock { state in
            state.pools = pools
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: pools)
        }
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
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume(throwing: Self.closedError)
        }
    }

    private static var closedError: StoreError { LoopConnectionPool.closedError }
}
