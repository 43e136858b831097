import Foundation

/// At most a few SQLite stores open and migrate at a time in one process.
///
/// SQLite's unix VFS sets up a new database file's locks and shared memory under process-wide
/// mutexes. A process that opened hundreds of stores at once (the test suite, one store per
/// test server) held 370 threads in migrations waiting on one of them; the mutex convoy took the
/// two cores for a minute, and nothing else in the process (PostgreSQL connections, HTTP
/// bodies) was served meanwhile. A server opens one store, so the gate costs it nothing.
actor SQLiteOpenings {
    /// The process's gate: as many openings at once as there are cores, at least two.
    static let shared = SQLiteOpenings(limit: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    /// Runs `body` once fewer than `limit` openings run; the others wait their turn in order.
    func run<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the place to the next waiting opening, or frees it.
    private func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
