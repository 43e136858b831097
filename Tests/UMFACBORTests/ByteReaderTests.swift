import Testing
import UMFACBOR

@Suite("ByteReader")
struct ByteReaderTests {
    /// The fields of an ``ByteReader/OutOfBounds`` error.
    private struct Failure: Equatable {
        let needed: Int
        let remaining: Int
        let offset: Int
    }

    /// What `read` threw, or `nil` when it succeeded or threw something else.
    private func failure<T>(_ read: () throws -> T) -> Failure? {
        do {
            _ = try read()
            return nil
        } catch let error as ByteReader.OutOfBounds {
            return Failure(needed: error.needed, remaining: error.remaining, offset: error.offset)
        } catch {
            return nil
        }
    }

    @Test("reads big-endian integers and byte runs in sequence")
    func sequentialReads() throws {
        var reader = ByteReader(bytes("01 0203 04050607 08090a 0b0c"))
        #expect(reader.remaining == 12)
        #expect(try reader.readUInt8() == 0x01)
        #expect(try reader.readUInt16() == 0x0203)
        #expect(try reader.readUInt32() == 0x0405_0607)
        #expect(try reader.read(3) == [0x08, 0x09, 0x0a])
        #expect(reader.offset == 10)
        #expect(!reader.isAtEnd)
        #expect(reader.readRemaining() == [0x0b, 0x0c])
        #expect(reader.isAtEnd)
        #expect(reader.remaining == 0)
        #expect(reader.readRemaining() == [])
        #expect(try reader.read(0) == [])
    }

    @Test("skip moves the cursor without returning bytes")
    func skip() throws {
        var reader = ByteReader(bytes("aa bb cc dd"))
        try reader.skip(2)
        #expect(try reader.readUInt8() == 0xcc)
        try reader.skip(1)
        #expect(reader.isAtEnd)
    }

    @Test("a read past the end throws with what was needed, what remained and where")
    func outOfBounds() throws {
        var reader = ByteReader(bytes("01 02 03"))
        try reader.skip(1)
        #expect(failure { try reader.readUInt32() } == Failure(needed: 4, remaining: 2, offset: 1))
        #expect(failure { try reader.read(3) } == Failure(needed: 3, remaining: 2, offset: 1))
        #expect(failure { try reader.skip(5) } == Failure(needed: 5, remaining: 2, offset: 1))
        #expect(failure { try reader.read(.max) } == Failure(needed: Int.max, remaining: 2, offset: 1))
        // A failed read leaves the cursor where it was.
        #expect(reader.offset == 1)
        #expect(try reader.readUInt16() == 0x0203)
        #expect(failure { try reader.readUInt8() } == Failure(needed: 1, remaining: 0, offset: 3))
        #expect(failure { try reader.readUInt16() } == Failure(needed: 2, remaining: 0, offset: 3))
    }

    @Test("negative counts are refused rather than moving backwards")
    func negativeCounts() {
        var reader = ByteReader([1, 2, 3])
        #expect(failure { try reader.read(-1) } == Failure(needed: -1, remaining: 3, offset: 0))
        #expect(failure { try reader.skip(-2) } == Failure(needed: -2, remaining: 3, offset: 0))
        #expect(reader.offset == 0)
    }

    @Test("an empty reader is at its end and refuses every read")
    func empty() {
        var reader = ByteReader([])
        #expect(reader.isAtEnd)
        #expect(throws: ByteReader.OutOfBounds.self) { try reader.readUInt8() }
        #expect(reader.readRemaining() == [])
    }
}
