import ArgumentParser
import Foundation
import UMFAQR

/// `umfa qr`: a QR code of a text (an app link, a URL) in the terminal or as a PNG or SVG file,
/// made by UMFA's own encoder (byte mode; docs/contract.md §7).
struct QRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr",
        abstract: "Draw a QR code of a text in the terminal, or write it as PNG or SVG.",
        discussion: """
            Without --png or --svg the code is drawn with half blocks for a dark terminal \
            (--invert for a light one). --input FILE encodes a file's bytes instead of TEXT.
            """)

    @Argument(help: "The text to encode (its UTF-8 bytes).") var text: String?
    @Option(help: "Encode this file's bytes instead of TEXT (- for standard input).") var input: String?
    @Option(help: "Write a PNG here.") var png: String?
    @Option(help: "Write an SVG here.") var svg: String?
    @Option(help: "Error correction level: L, M (default), Q or H.") var ecc = "M"
    @Option(help: "A fixed version, 1-40 (default: the smallest that fits).") var version: Int?
    @Option(help: "A fixed mask pattern, 0-7 (default: the one with the lowest penalty).") var mask: Int?
    @Option(help: "Pixels per module in the PNG (1-32).") var scale = 4
    @Flag(help: "Draw dark modules as blocks (for a light terminal).") var invert = false
    @Flag(help: "Print the module matrix as rows of 0 and 1 and a JSON line about the symbol.") var matrix = false

    func run() throws {
        guard let level = QRCode.ErrorCorrection(rawValue: ecc.uppercased()) else {
            throw ValidationError("--ecc must be L, M, Q or H")
        }
        guard (1...32).contains(scale) else { throw ValidationError("--scale must be 1 to 32") }
        let bytes: [UInt8]
        switch (text, input) {
        case (let text?, nil): bytes = Array(text.utf8)
        case (nil, let path?): bytes = Array(try CommandIO.readFile(path))
        default: throw ValidationError("give TEXT or --input FILE, one of the two")
        }
        let code: QRCode
        do {
            code = try QRCode(bytes: bytes, errorCorrection: level, version: version, mask: mask)
        } catch {
            throw ValidationError(error.description)
        }
        if let png {
            try Data(try code.png(scale: scale)).write(to: URL(fileURLWithPath: png))
        }
        if let svg {
            try Data(code.svg().utf8).write(to: URL(fileURLWithPath: svg))
        }
        if matrix {
            try CommandIO.printJSON(
                [
                    "version": code.version, "mask": code.mask, "size": code.size, "bytes": bytes.count,
                    "capacity": QRCode.capacity(version: code.version, errorCorrection: level),
                ])
            print(code.matrixText, terminator: "")
        } else if png == nil, svg == nil {
            print(code.terminalText(inverted: invert), terminator: "")
        }
    }
}
