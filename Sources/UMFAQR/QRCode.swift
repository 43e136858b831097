/// A QR Code symbol (ISO/IEC 18004:2015, model 2) holding bytes in byte mode: the module grid,
/// its version (1–40, the smallest that fits unless one is asked for), its error correction
/// level and the mask chosen by the standard's penalty rules (§7.8.3) unless one is asked for.
package struct QRCode: Sendable, Equatable {
    /// The error correction levels (§7.5.1): the share of codewords that can be restored.
    package enum ErrorCorrection: String, Sendable, CaseIterable {
        /// About 7 %.
        case low = "L"
        /// About 15 %.
        case medium = "M"
        /// About 25 %.
        case quartile = "Q"
        /// About 30 %.
        case high = "H"

        /// The two bits the format information carries (§7.9.1, Table 12).
        var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }
    }

    /// The version, 1 to 40: the symbol is `17 + 4 × version` modules wide.
    package let version: Int
    /// The error correction level.
    package let errorCorrection: ErrorCorrection
    /// The data mask pattern, 0 to 7 (§7.8.2).
    package let mask: Int
    /// Modules per side.
    package var size: Int { QRTables.size(version) }
    /// Row-major: `true` for a dark module.
    let modules: [Bool]

    /// Whether the module in column `x`, row `y` is dark (outside the symbol: light).
    package func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    /// The most bytes a symbol of `version` and `errorCorrection` holds in byte mode.
    package static func capacity(version: Int, errorCorrection: ErrorCorrection) -> Int {
        let bits = QRTables.dataCodewords(version, errorCorrection) * 8 - 4 - QRTables.countBits(version)
        return bits / 8
    }

    /// Encodes `bytes` in byte mode.
    /// - Parameters:
    ///   - version: a fixed version, or `nil` for the smallest that holds the bytes.
    ///   - mask: a fixed mask pattern, or `nil` for the one with the lowest penalty.
    /// - Throws: ``QRCodeError`` when the bytes do not fit or a fixed value is out of range.
    package init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium, version: Int? = nil, mask: Int? = nil)
        throws(QRCodeError)
    {
        if let version, !(1...40).contains(version) { throw .invalidVersion(version) }
        if let mask, !(0...7).contains(mask) { throw .invalidMask(mask) }
        let candidates = version.map { [$0] } ?? Array(1...40)
        guard
            let chosen = candidates.first(where: {
                bytes.count <= Self.capacity(version: $0, errorCorrection: errorCorrection)
            })
        else {
            let largest = candidates.last ?? 40
            throw .tooLong(bytes.count, capacity: Self.capacity(version: largest, errorCorrection: errorCorrection))
        }
        let codewords = QRCodewords.make(bytes, version: chosen, errorCorrection: errorCorrection)
        var matrix = QRMatrix(version: chosen)
        matrix.place(codewords)
        let masks = mask.map { [$0] } ?? Array(0...7)
        var best: (mask: Int, penalty: Int, grid: QRMatrix)?
        for pattern in masks {
            var candidate = matrix
            candidate.apply(mask: pattern)
            candidate.drawFormat(errorCorrection: errorCorrection, mask: pattern)
            let penalty = masks.count == 1 ? 0 : candidate.penalty
            if best == nil || penalty < best?.penalty ?? .max { best = (pattern, penalty, candidate) }
        }
        guard let best else { throw .invalidMask(-1) }
        self.version = chosen
        self.errorCorrection = errorCorrection
        self.mask = best.mask
        modules = best.grid.dark
    }

    /// Encodes the UTF-8 bytes of `text`.
    package init(text: String, errorCorrection: ErrorCorrection = .medium) throws(QRCodeError) {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection)
    }
}

/// Why a QR code could not be made.
package enum QRCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data is longer than the largest allowed symbol holds.
    case tooLong(Int, capacity: Int)
    /// A version outside 1–40 was asked for.
    case invalidVersion(Int)
    /// A mask outside 0–7 was asked for.
    case invalidMask(Int)

    /// A sentence for the user.
    package var description: String {
        switch self {
        case .tooLong(let count, let capacity):
            "\(count) bytes do not fit in a QR code of that size and level (at most \(capacity))"
        case .invalidVersion(let version): "QR versions are 1 to 40, not \(version)"
        case .invalidMask(let mask): "QR mask patterns are 0 to 7, not \(mask)"
        }
    }
}
