import Foundation
import Testing

@testable import UMFAQR

/// The parts of ISO/IEC 18004 that have published values; the whole symbol is checked against
/// independent decoders and segno by `Tests/Interop/test_qr_codes.py`.
@Suite("QR encoder")
struct QRCodeTests {
    @Test("format information: the BCH(15,5) code words of Table C.1 for mask 0 at each level")
    func formatInformation() {
        let expected: [QRCode.ErrorCorrection: Int] = [
            .low: 0b111_0111_1100_0100, .medium: 0b101_0100_0001_0010, .quartile: 0b011_0101_0101_1111,
            .high: 0b001_0110_1000_1001,
        ]
        for (level, bits) in expected {
            let data = level.formatBits << 3
            #expect((data << 10 | QRMatrix.bchRemainder(data, generator: 0x537, degree: 10)) ^ 0x5412 == bits)
        }
    }

    @Test("version information: the BCH(18,6) code words of Table D.1 for versions 7 and 40")
    func versionInformation() {
        #expect(7 << 12 | QRMatrix.bchRemainder(7, generator: 0x1F25, degree: 12) == 0b00_0111_1100_1001_0100)
        #expect(40 << 12 | QRMatrix.bchRemainder(40, generator: 0x1F25, degree: 12) == 0b10_1000_1100_0110_1001)
    }

    @Test("byte-mode capacities of Table 7: 1-L 17, 1-H 7, 10-M 213, 40-L 2953, 40-H 1273")
    func capacities() {
        #expect(QRCode.capacity(version: 1, errorCorrection: .low) == 17)
        #expect(QRCode.capacity(version: 1, errorCorrection: .high) == 7)
        #expect(QRCode.capacity(version: 10, errorCorrection: .medium) == 213)
        #expect(QRCode.capacity(version: 40, errorCorrection: .low) == 2953)
        #expect(QRCode.capacity(version: 40, errorCorrection: .high) == 1273)
    }

    @Test("alignment pattern centres of Annex E: versions 2, 7, 32 and 40")
    func alignment() {
        #expect(QRTables.alignmentCentres(1) == [])
        #expect(QRTables.alignmentCentres(2) == [6, 18])
        #expect(QRTables.alignmentCentres(7) == [6, 22, 38])
        #expect(QRTables.alignmentCentres(32) == [6, 34, 60, 86, 112, 138])
        #expect(QRTables.alignmentCentres(40) == [6, 30, 58, 86, 114, 142, 170])
    }

    @Test("Reed–Solomon: the Annex I example's 10 error correction codewords of version 1-M")
    func reedSolomon() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        #expect(
            ReedSolomon.remainder(data, generator: ReedSolomon.generator(degree: 10))
                == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test("the smallest version that fits is chosen; too much data and bad options are refused")
    func versionChoice() throws {
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: 17), errorCorrection: .low).version == 1)
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: 18), errorCorrection: .low).version == 2)
        #expect(throws: QRCodeError.tooLong(2954, capacity: 2953)) {
            try QRCode(bytes: Array(repeating: 0, count: 2954), errorCorrection: .low)
        }
        #expect(throws: QRCodeError.tooLong(18, capacity: 17)) {
            try QRCode(bytes: Array(repeating: 0, count: 18), errorCorrection: .low, version: 1)
        }
        #expect(throws: QRCodeError.invalidVersion(41)) { try QRCode(bytes: [1], version: 41) }
        #expect(throws: QRCodeError.invalidMask(8)) { try QRCode(bytes: [1], mask: 8) }
    }

    @Test("function patterns: finders, timing and the dark module sit where §6.3 puts them")
    func functionPatterns() throws {
        let code = try QRCode(text: "https://umfa.example/open?t=abc", errorCorrection: .quartile)
        let last = code.size - 1
        for (x, y) in [(0, 0), (6, 0), (0, 6), (last, 0), (0, last), (2, 2), (last - 2, 2)] {
            #expect(code.isDark(x: x, y: y), "(\(x), \(y))")
        }
        for (x, y) in [(7, 0), (0, 7), (1, 1), (last - 7, 0)] { #expect(!code.isDark(x: x, y: y), "(\(x), \(y))") }
        for index in 8..<(code.size - 8) { #expect(code.isDark(x: index, y: 6) == index.isMultiple(of: 2)) }
        #expect(code.isDark(x: 8, y: code.size - 8))
    }

    @Test("the chosen mask has the lowest penalty of the eight")
    func maskChoice() throws {
        let bytes = Array("UMFA approval 4711".utf8)
        let chosen = try QRCode(bytes: bytes, errorCorrection: .medium)
        var penalties: [Int] = []
        for mask in 0...7 {
            var matrix = QRMatrix(version: chosen.version)
            matrix.place(QRCodewords.make(bytes, version: chosen.version, errorCorrection: .medium))
            matrix.apply(mask: mask)
            matrix.drawFormat(errorCorrection: .medium, mask: mask)
            penalties.append(matrix.penalty)
        }
        #expect(penalties[chosen.mask] == penalties.min())
    }

    @Test("PNG: signature, IHDR size and bit depth, and chunks whose CRC-32 checks")
    func png() throws {
        let code = try QRCode(text: "hello", errorCorrection: .low)
        let png = try code.png(scale: 3, border: 4)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let width = (code.size + 8) * 3
        #expect(Array(png[16..<24]) == [0, 0, 0, UInt8(width), 0, 0, 0, UInt8(width)])
        #expect(png[24] == 1 && png[25] == 0)
        var offset = 8
        var types: [String] = []
        while offset < png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let typed = Array(png[(offset + 4)..<(offset + 8 + length)])
            let crc = png[(offset + 8 + length)..<(offset + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(CRC32.checksum(typed) == crc)
            types.append(String(decoding: typed.prefix(4), as: UTF8.self))
            offset += 12 + length
        }
        #expect(types == ["IHDR", "IDAT", "IEND"])
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(try code.pngDataURI().hasPrefix("data:image/png;base64,iVBORw0KGgo"))
    }

    @Test("SVG and terminal text draw the same modules")
    func textOutputs() throws {
        let code = try QRCode(text: "umfa", errorCorrection: .high)
        let svg = code.svg(border: 4)
        #expect(svg.contains("viewBox=\"0 0 \(code.size + 8) \(code.size + 8)\""))
        let squares = svg.components(separatedBy: "h1v1h-1z").count - 1
        let dark = (0..<code.size).flatMap { y in (0..<code.size).map { code.isDark(x: $0, y: y) } }
        #expect(squares == dark.count(where: { $0 }))
        let lines = code.terminalText(border: 0).split(separator: "\n")
        #expect(lines.count == (code.size + 1) / 2)
        // Row 0 and 1, column 0: both dark (finder) → a space on a dark terminal.
        #expect(lines[0].first == " ")
        #expect(code.matrixText.split(separator: "\n").count == code.size)
    }
}
