import Foundation
import Testing
import UMFAStorage

@Suite("Storage: shared abuse counters")
struct AbuseCounterStoreTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let key = AbuseCounterKey(counter: "user", key: "00112233445566778899aabbccddeeff")

    static func fail(_ store: any UMFAStore, at offset: TimeInterval, window: TimeInterval = 60) async throws
        -> AbuseCounterRecord
    {
        let now = start.addingTimeInterval(offset)
        return try await store.recordAbuseFailure(
            key, now: now, window: window, strikeMemoryStart: now.addingTimeInterval(-120))
    }

    @Test("failures count up in one window and start over after it", arguments: Engine.allCases)
    func counting(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            #expect(try await store.abuseCounters([Self.key]).isEmpty)
            #expect(try await Self.fail(store, at: 0).failures == 1)
            #expect(try await Self.fail(store, at: 10).failures == 2)
            let third = try await Self.fail(store, at: 59)
            #expect(third.failures == 3 && third.windowStart == Self.start && third.strikes == 0)
            let fresh = try await Self.fail(store, at: 60)
            #expect(fresh.failures == 1, "the window ran out")
            #expect(fresh.windowStart == Self.start.addingTimeInterval(60))
            // Another counter with the same key is another row.
            let other = AbuseCounterKey(counter: "address", key: Self.key.key)
            _ = try await store.recordAbuseFailure(
                other, now: Self.start, window: 60, strikeMemoryStart: Self.start.addingTimeInterval(-120))
            let both = try await store.abuseCounters([Self.key, other])
            #expect(Set(both.map(\.key)) == [Self.key, other])
            try await store.deleteAbuseCounter(Self.key)
            #expect(try await store.abuseCounters([Self.key, other]).map(\.key) == [other])
        }
    }

    @Test("a block is applied once, adds a strike and restarts the count", arguments: Engine.allCases)
    func blockOnce(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            for offset in 0..<3 { _ = try await Self.fail(store, at: TimeInterval(offset)) }
            let until = Self.start.addingTimeInterval(32)
            let now = Self.start.addingTimeInterval(2)
            // Two instances reach the limit together: one of them blocks.
            async let first = store.blockAbuseCounter(Self.key, until: until, ifFailuresAtLeast: 3, now: now)
            async let second = store.blockAbuseCounter(Self.key, until: until, ifFailuresAtLeast: 3, now: now)
            #expect([try await first, try await second].filter { $0 }.count == 1)
            let blocked = try #require(try await store.abuseCounters([Self.key]).first)
            #expect(blocked.blockedUntil == until && blocked.strikes == 1 && blocked.failures == 0)
            // Strikes are kept while the key is active, forgotten after a quiet spell.
            #expect(try await Self.fail(store, at: 40).strikes == 1)
            #expect(try await Self.fail(store, at: 40 + 121).strikes == 0)
        }
    }

    @Test("the purge drops idle counters and keeps blocked ones", arguments: Engine.allCases)
    func purge(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let blockedKey = AbuseCounterKey(counter: "address", key: "ffeeddccbbaa99887766554433221100")
            _ = try await Self.fail(store, at: 0)
            _ = try await store.recordAbuseFailure(
                blockedKey, now: Self.start, window: 60, strikeMemoryStart: Self.start.addingTimeInterval(-120))
            #expect(
                try await store.blockAbuseCounter(
                    blockedKey, until: Self.start.addingTimeInterval(900), ifFailuresAtLeast: 1, now: Self.start))
            try await store.purgeAbuseCounters(idleBefore: Self.start.addingTimeInterval(1))
            #expect(try await store.abuseCounters([Self.key, blockedKey]).map(\.key) == [blockedKey])
            // A block that ended less than the idle time ago keeps its strikes (the flake of CI at
            // 45f5e81: a sweep right after a block ended forgot them, and the next block was the first).
            try await store.purgeAbuseCounters(idleBefore: Self.start.addingTimeInterval(900))
            #expect(try await store.abuseCounters([Self.key, blockedKey]).map(\.key) == [blockedKey])
            try await store.purgeAbuseCounters(idleBefore: Self.start.addingTimeInterval(901))
            #expect(try await store.abuseCounters([Self.key, blockedKey]).isEmpty)
        }
    }
}
