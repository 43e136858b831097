/// The module grid while a symbol is built (§7.7–§7.9): function patterns first, then the
/// codewords in the two-column zigzag, then a mask over the data modules and the format bits.
struct QRMatrix: Sendable {
    let size: Int
    /// Row-major darkness.
    private(set) var dark: [Bool]
    /// Row-major: finder, separator, timing, alignment, format and version modules.
    private var reserved: [Bool]

    init(version: Int) {
        size = QRTables.size(version)
        dark = Array(repeating: false, count: size * size)
        reserved = Array(repeating: false, count: size * size)
        drawFunctionPatterns(version: version)
    }

    private mutating func set(_ x: Int, _ y: Int, _ isDark: Bool) {
        dark[y * size + x] = isDark
        reserved[y * size + x] = true
    }

    // MARK: Function patterns (§6.3)

    private mutating func drawFunctionPatterns(version: Int) {
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] { drawFinder(x, y) }
        let centres = QRTables.alignmentCentres(version)
        for x in centres {
            for y in centres {
                let nearFinder =
                    (x == 6 && y == 6) || (x == 6 && y == centres.last) || (x == centres.last && y == 6)
                if !nearFinder { drawAlignment(x, y) }
            }
        }
        // Reserve the format areas now; their bits come with the mask.
        drawFormat(bits: 0)
        drawVersion(version)
    }

    /// A finder with its separator: rings at Chebyshev distance 0–1 and 3 dark, 2 and 4 light.
    private mutating func drawFinder(_ centreX: Int, _ centreY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let (x, y) = (centreX + dx, centreY + dy)
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let distance = max(abs(dx), abs(dy))
                set(x, y, distance != 2 && distance != 4)
            }
        }
    }

    private mutating func drawAlignment(_ centreX: Int, _ centreY: Int) {
        for dy in -2...2 {
            for dx in -2...2 { set(centreX + dx, centreY + dy, max(abs(dx), abs(dy)) != 1) }
        }
    }

    /// The version information (§7.10), versions 7 and up: 6 bits and a BCH(18,6) remainder,
    /// in the two 6×3 blocks next to the upper-right and lower-left finders.
    private mutating func drawVersion(_ version: Int) {
        guard version >= 7 else { return }
        let bits = version << 12 | Self.bchRemainder(version, generator: 0x1F25, degree: 12)
        for index in 0..<18 {
            let isDark = (bits >> index) & 1 == 1
            let (a, b) = (size - 11 + index % 3, index / 3)
            set(a, b, isDark)
            set(b, a, isDark)
        }
    }

    /// The format information (§7.9): level and mask, a BCH(15,5) remainder, XOR 101010000010010,
    /// once around the upper-left finder and once split by the other two; plus the dark module.
    mutating func drawFormat(errorCorrection: QRCode.ErrorCorrection, mask: Int) {
        let data = errorCorrection.formatBits << 3 | mask
        drawFormat(bits: (data << 10 | Self.bchRemainder(data, generator: 0x537, degree: 10)) ^ 0x5412)
    }

    private mutating func drawFormat(bits: Int) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { set(8, index, bit(index)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for index in 9..<15 { set(14 - index, 8, bit(index)) }
        for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
        set(8, size - 8, true)
    }

    /// The remainder of `value`·x^degree divided by `generator` over GF(2).
    static func bchRemainder(_ value: Int, generator: Int, degree: Int) -> Int {
        var remainder = value << degree
        for shift in stride(from: bitLength(remainder) - 1, through: degree, by: -1)
        where (remainder >> shift) & 1 == 1 {
            remainder ^= generator << (shift - degree)
        }
        return remainder
    }

    private static func bitLength(_ value: Int) -> Int { Int.bitWidth - value.leadingZeroBitCount }

    // MARK: Data (§7.7.3)

    /// The codewords' bits, most significant first, up and down the column pairs from the right
    /// (skipping the vertical timing column); modules left over stay light.
    mutating func place(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !reserved[y * size + x] {
                    if index < totalBits {
                        dark[y * size + x] = (codewords[index >> 3] >> (7 - index & 7)) & 1 == 1
                        index += 1
                    }
                }
            }
            right -= 2
        }
    }

    // MARK: Masks (§7.8)

    /// Whether mask `pattern` flips the module at row `y`, column `x` (Table 10).
    static func flips(_ pattern: Int, x: Int, y: Int) -> Bool {
        switch pattern {
        case 0: (y + x) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (y + x) % 3 == 0
        case 4: (y / 2 + x / 3) % 2 == 0
        case 5: (y * x) % 2 + (y * x) % 3 == 0
        case 6: ((y * x) % 2 + (y * x) % 3) % 2 == 0
        default: ((y + x) % 2 + (y * x) % 3) % 2 == 0
        }
    }

    mutating func apply(mask pattern: Int) {
        for y in 0..<size {
            for x in 0..<size where !reserved[y * size + x] && Self.flips(pattern, x: x, y: y) {
                dark[y * size + x].toggle()
            }
        }
    }

    // MARK: Penalty (§7.8.3)

    /// N1 runs of five or more, N2 2×2 blocks, N3 finder-like 1:1:3:1:1 patterns with four light
    /// modules on a side, N4 the dark share's distance from half.
    var penalty: Int {
        var score = 0
        let lines: [[Bool]] =
            (0..<size).map { y in (0..<size).map { dark[y * size + $0] } }
            + (0..<size).map { x in (0..<size).map { dark[$0 * size + x] } }
        for line in lines {
            score += Self.runPenalty(line) + Self.finderPenalty(line)
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = dark[y * size + x]
                if dark[y * size + x + 1] == colour, dark[(y + 1) * size + x] == colour,
                    dark[(y + 1) * size + x + 1] == colour
                {
                    score += 3
                }
            }
        }
        let darkCount = dark.count(where: { $0 })
        let total = size * size
        // The smallest k with |dark/total − 1/2| ≤ (k+1)·5 %, times 10.
        let k = (abs(darkCount * 20 - total * 10) + total - 1) / total - 1
        return score + max(0, k) * 10
    }

    static func runPenalty(_ line: [Bool]) -> Int {
        var score = 0
        var run = 1
        for index in 1...line.count {
            if index < line.count, line[index] == line[index - 1] {
                run += 1
            } else {
                if run >= 5 { score += run - 2 }
                run = 1
            }
        }
        return score
    }

    static let finderLike: [Bool] = [true, false, true, true, true, false, true]

    /// 40 for each dark-light-dark×3-light-dark run with four light modules (or the edge) before or
    /// after it.
    static func finderPenalty(_ line: [Bool]) -> Int {
        let padded = Array(repeating: false, count: 4) + line + Array(repeating: false, count: 4)
        var score = 0
        for start in 4...(padded.count - 11) where Array(padded[start..<start + 7]) == finderLike {
            let before = padded[(start - 4)..<start].allSatisfy { !$0 }
            let after = padded[(start + 7)..<(start + 11)].allSatisfy { !$0 }
            if before || after { score += 40 }
        }
        return score
    }
}
