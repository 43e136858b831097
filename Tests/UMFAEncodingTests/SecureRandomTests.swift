import Testing
import UMFAEncoding

/// Random bytes for challenges, ids and secrets: the length asked for, and not a pattern.
struct SecureRandomTests {
    @Test func everyLengthIsExact() {
        for count in 0..<70 { #expect(SecureRandom.bytes(count).count == count) }
    }

    /// 64 KiB of output: every byte value turns up about as often as the others (a byte stuck
    /// at one value, or drawn from only part of each 64-bit draw, would fail this by far).
    @Test func bytesAreSpreadOverEveryValue() {
        var counts = [Int](repeating: 0, count: 256)
        for _ in 0..<2048 {
            for byte in SecureRandom.bytes(32) { counts[Int(byte)] += 1 }
        }
        // Expected 256 each; the bounds are over 8 standard deviations (about 16) away.
        #expect(counts.allSatisfy { (128...384).contains($0) }, "\(counts)")
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }
}
