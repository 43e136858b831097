import Synchronization
import Testing
import UMFATestSupport

@testable import UMFAStorage

/// Opening stores is gated per process: at most the limit run at once, and every opening runs.
@Suite("Storage: SQLite openings a few at a time")
struct SQLiteOpeningsTests {
    @Test("twelve openings through a gate of two: never more than two at once, all run, a failure frees its place")
    func limit() async throws {
        let gate = SQLiteOpenings(limit: 2)
        let state = Inside()
        let release = Flag()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<12 {
                group.addTask {
                    do {
                        return try await gate.run {
                            state.enter()
                            // Held until every task has had the chance to enter.
                            await release.wait(atMost: .milliseconds(200))
                            state.leave()
                            if index == 3 { throw StoreError(.unavailable, "test: this opening fails") }
                            return true
                        }
                    } catch {
                        return false
                    }
                }
            }
            var results: [Bool] = []
            for await result in group { results.append(result) }
            return results
        }
        release.raise()
        #expect(results.count == 12)
        #expect(results.filter { !$0 }.count == 1, "the failing opening failed; the others ran after it")
        #expect(state.counts.most <= 2, "more than two openings ran at once")
        #expect(state.counts.now == 0)
    }
}

/// How many run inside the gate now, and the most at once.
private final class Inside: Sendable {
    private let state = Mutex<(now: Int, most: Int)>((0, 0))

    func enter() {
        state.withLock { state in
            state.now += 1
            state.most = max(state.most, state.now)
        }
    }

    func leave() { state.withLock { $0.now -= 1 } }

    var counts: (now: Int, most: Int) { state.withLock { $0 } }
}
