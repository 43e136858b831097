import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Who runs the connection pool. `PostgresClient.run()` runs once per client, for as long as
/// its caller's task lasts; each of these runs a client of its own and makes it the one
/// statements lease from meanwhile:
/// - the server's service group, through ``run()``, until graceful shutdown (put the executor
///   first in the group, so it stops after everything that still uses the store);
/// - start-up work before the service group runs (migrations, bootstrap), inside
///   ``withPool(_:)``;
/// - tools and tests without a service group, through ``startStandalone()`` until ``close()``.
extension PostgresExecutor: Service {
    /// Runs a pool until graceful shutdown or cancellation.
    func run() async throws {
        try await withPool {
            try? await gracefulShutdown()
        }
    }

    /// Runs `body` with a pool of its own running, shut down when `body` ends.
    func withPool<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            pool.install(client)
            defer { pool.remove(client) }
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

/// The pool statements lease connections from: the client a running ``PostgresExecutor/withPool(_:)``
/// put up. Between two pools (start-up work done, service group not yet running) a statement
/// waits for the next one; once closed, statements fail at once.
final class PoolSlot: Sendable {
    private struct State {
        var client: PostgresClient?
        var closed = false
        var waiters: [UInt64: CheckedContinuation<PostgresClient, any Error>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The running pool, waited for while there is none; cancellation ends the wait.
    func client() async throws -> PostgresClient {
        let (ready, id): (Result<PostgresClient, any Error>?, UInt64) = state.withLock { state in
            if state.closed { return (.failure(Self.closedError), 0) }
            if let client = state.client { return (.success(client), 0) }
            state.nextWaiter += 1
            return (nil, state.nextWaiter)
        }
        if let ready { return try ready.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<PostgresClient, any Error>? = state.withLock { state in
                    if state.closed { return .failure(Self.closedError) }
                    if let client = state.client { return .success(client) }
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

    /// Makes `client` the pool statements use, and hands it to those waiting.
    func install(_ client: PostgresClient) {
        let waiters = state.withLock { state in
            state.client = client
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume(returning: client) }
    }

    /// Forgets `client` when it is the current pool (its run is ending).
    func remove(_ client: PostgresClient) {
        state.withLock { state in
            if state.client === client { state.client = nil }
        }
    }

    /// Refuses every later statement, and fails those waiting.
    func close() {
        let waiters = state.withLock { state in
            state.closed = true
            state.client = nil
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume(throwing: Self.closedError) }
    }

    private static var closedError: StoreError { StoreError(.unavailable, "PostgreSQL: the store is closed") }
}
