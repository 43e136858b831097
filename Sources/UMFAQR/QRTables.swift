/// The symbol sizes and error correction block structure of ISO/IEC 18004:2015 (Table 9).
enum QRTables {
    /// Error correction codewords per block, by level, for versions 1–40.
    static let eccPerBlock: [QRCode.ErrorCorrection: [Int]] = [
        .low: [
            7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        .medium: [
            10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28,
            28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        .quartile: [
            13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        .high: [
            17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30,
            30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    /// Error correction blocks, by level, for versions 1–40.
    static let blocks: [QRCode.ErrorCorrection: [Int]] = [
        .low: [
            1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18,
            19, 19, 20, 21, 22, 24, 25,
        ],
        .medium: [
            1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29,
            31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        .quartile: [
            1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38,
            40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        .high: [
            1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45,
            48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]

    static func size(_ version: Int) -> Int { 17 + 4 * version }

    /// Bits of the byte-mode character count indicator (Table 3).
    static func countBits(_ version: Int) -> Int { version < 10 ? 8 : 16 }

    /// The centre coordinates of the alignment patterns along one axis (Annex E): 6, then evenly
    /// spaced (an even step) up to `size − 7`.
    static func alignmentCentres(_ version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = (version * 8 + count * 3 + 5) / (count * 4 - 4) * 2
        let last = size(version) - 7
        return [6] + (0..<(count - 1)).map { last - step * $0 }.reversed()
    }

    /// Modules left for data and error correction once the function patterns are drawn.
    static func dataModules(_ version: Int) -> Int {
        var modules = (16 * version + 128) * version + 64
        if version >= 2 {
            let count = version / 7 + 2
            modules -= (25 * count - 10) * count - 55
            if version >= 7 { modules -= 36 }
        }
        return modules
    }

    static func totalCodewords(_ version: Int) -> Int { dataModules(version) / 8 }

    static func dataCodewords(_ version: Int, _ level: QRCode.ErrorCorrection) -> Int {
        totalCodewords(version) - (eccPerBlock[level]?[version - 1] ?? 0) * (blocks[level]?[version - 1] ?? 1)
    }
}
