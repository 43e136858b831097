import CompressNIO
import Foundation
import NIOCore

extension QRCode {
    /// A 1-bit greyscale PNG (RFC 2083): `scale` pixels per module and a quiet zone of `border`
    /// modules (the standard asks for 4), the image data zlib-compressed by CompressNIO.
    package func png(scale: Int = 4, border: Int = 4) throws -> [UInt8] {
        let scale = max(1, scale)
        let border = max(0, border)
        let width = (size + 2 * border) * scale
        let rowBytes = (width + 7) / 8
        var raw = ByteBufferAllocator().buffer(capacity: (rowBytes + 1) * width)
        for pixelRow in 0..<width {
            raw.writeInteger(UInt8(0))  // filter: none
            let y = pixelRow / scale - border
            var byte: UInt8 = 0
            for pixel in 0..<(rowBytes * 8) {
                // 1 is white: light modules, the quiet zone and the padding bits.
                let light = pixel >= width || !isDark(x: pixel / scale - border, y: y)
                byte = byte << 1 | (light ? 1 : 0)
                if pixel % 8 == 7 {
                    raw.writeInteger(byte)
                    byte = 0
                }
            }
        }
        let compressed = try raw.compress(with: .zlib())
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(width))
        header += [1, 0, 0, 0, 0]  // bit depth 1, greyscale, deflate, no filter set, no interlace
        png += Self.chunk("IHDR", header)
        png += Self.chunk("IDAT", Array(compressed.readableBytesView))
        png += Self.chunk("IEND", [])
        return png
    }

    /// The PNG as a `data:` URI, for JSON answers and `<img src>`.
    package func pngDataURI(scale: Int = 4, border: Int = 4) throws -> String {
        "data:image/png;base64," + Data(try png(scale: scale, border: border)).base64EncodedString()
    }

    /// An SVG image: one path of unit squares on a white square, `border` modules of quiet zone.
    package func svg(border: Int = 4) -> String {
        let border = max(0, border)
        let side = size + 2 * border
        var path = ""
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) { path += "M\(x + border),\(y + border)h1v1h-1z" }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 \(side) \(side)" \
            shape-rendering="crispEdges"><rect width="100%" height="100%" fill="#ffffff"/>\
            <path d="\(path)" fill="#000000"/></svg>

            """
    }

    /// Terminal text: two module rows per line with half blocks, light modules drawn as blocks so
    /// that the code reads right on a dark terminal background (`inverted` for a light one).
    package func terminalText(border: Int = 2, inverted: Bool = false) -> String {
        let border = max(0, border)
        let range = -border..<(size + border)
        var lines: [String] = []
        for top in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = ""
            for x in range {
                let upper = isDark(x: x, y: top) == inverted
                let lower = top + 1 < range.upperBound ? isDark(x: x, y: top + 1) == inverted : false
                switch (upper, lower) {
                case (true, true): line += "\u{2588}"
                case (true, false): line += "\u{2580}"
                case (false, true): line += "\u{2584}"
                case (false, false): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The module matrix as rows of `0` (light) and `1` (dark), no quiet zone.
    package var matrixText: String {
        (0..<size).map { y in String((0..<size).map { isDark(x: $0, y: y) ? "1" : "0" }) }
            .joined(separator: "\n") + "\n"
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A PNG chunk: length, type, data, CRC-32 of type and data.
    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(CRC32.checksum(typed))
    }
}

/// CRC-32 (ISO 3309, the polynomial PNG chunks use).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
