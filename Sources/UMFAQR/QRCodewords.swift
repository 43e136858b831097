/// The final codeword sequence of a symbol (§7.4, §7.6): the byte-mode bit stream with
/// terminator and padding, split into blocks, each block's error correction appended, then the
/// blocks interleaved.
enum QRCodewords {
    static func make(_ bytes: [UInt8], version: Int, errorCorrection: QRCode.ErrorCorrection) -> [UInt8] {
        let capacity = QRTables.dataCodewords(version, errorCorrection)
        var bits = BitWriter()
        bits.append(0b0100, count: 4)  // byte mode
        bits.append(bytes.count, count: QRTables.countBits(version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        // Terminator (up to four zeros), then zeros to a byte boundary, then the pad bytes.
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var data = bits.bytes
        var pad: UInt8 = 0xEC
        while data.count < capacity {
            data.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return interleave(data, version: version, errorCorrection: errorCorrection)
    }

    /// Splits `data` into the version's blocks (the short ones first), adds each block's error
    /// correction, and reads the blocks column by column: data, then error correction.
    static func interleave(_ data: [UInt8], version: Int, errorCorrection: QRCode.ErrorCorrection) -> [UInt8] {
        let blockCount = QRTables.blocks[errorCorrection]?[version - 1] ?? 1
        let ecc = QRTables.eccPerBlock[errorCorrection]?[version - 1] ?? 0
        let total = QRTables.totalCodewords(version)
        let longBlocks = total % blockCount
        let shortData = total / blockCount - ecc
        let generator = ReedSolomon.generator(degree: ecc)
        var dataBlocks: [[UInt8]] = []
        var eccBlocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blockCount {
            let length = shortData + (index >= blockCount - longBlocks ? 1 : 0)
            let block = Array(data[offset..<offset + length])
            offset += length
            dataBlocks.append(block)
            eccBlocks.append(ReedSolomon.remainder(block, generator: generator))
        }
        var result: [UInt8] = []
        result.reserveCapacity(total)
        for column in 0...shortData {
            for block in dataBlocks where column < block.count { result.append(block[column]) }
        }
        for column in 0..<ecc {
            for block in eccBlocks { result.append(block[column]) }
        }
        return result
    }
}

/// Bits, most significant first.
struct BitWriter {
    private(set) var bits: [Bool] = []
    var count: Int { bits.count }

    mutating func append(_ value: Int, count: Int) {
        guard count > 0 else { return }
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { byte, index in
                let position = start + index
                return byte << 1 | (position < bits.count && bits[position] ? 1 : 0)
            }
        }
    }
}
