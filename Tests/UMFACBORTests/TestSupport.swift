import Foundation
import Testing
import UMFACBOR

/// Bytes from hexadecimal text; spaces are ignored so that tests can group the bytes of a head.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    precondition(digits.count.isMultiple(of: 2), "odd number of hex digits in \(hex)")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else {
            preconditionFailure("not hex: \(hex)")
        }
        return byte
    }
}

/// Lower-case hexadecimal text for bytes.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// Decodes hex with the default limits.
func decode(_ hexText: String) throws(CBORError) -> CBORValue {
    try CBORDecoder().decode(bytes(hexText))
}

/// The error that decoding `input` throws, or `nil` when it decodes.
func decodingError(_ input: [UInt8], limits: CBORDecoder.Limits = .init()) -> CBORError? {
    do {
        _ = try CBORDecoder(limits: limits).decode(input)
        return nil
    } catch {
        return error
    }
}

/// The error that decoding hex text throws, or `nil` when it decodes.
func decodingError(_ hexText: String, limits: CBORDecoder.Limits = .init()) -> CBORError? {
    decodingError(bytes(hexText), limits: limits)
}

/// One attestation object from the W3C WebAuthn test vectors, copied into this target's resources.
struct AttestationVector: Decodable, Sendable, CustomTestStringConvertible {
    let id: String
    let fmt: String
    let authDataLength: Int
    let canonical: Bool
    let attestationObjectHex: String

    var attestationObject: [UInt8] { bytes(attestationObjectHex) }
    var testDescription: String { id }

    enum CodingKeys: String, CodingKey {
        case id, fmt, authDataLength, canonical
        case attestationObjectHex = "attestationObject_hex"
    }

    private struct File: Decodable {
        let vectors: [AttestationVector]
    }

    /// Every vector in `Resources/attestation-objects.json`.
    static let all: [AttestationVector] = {
        guard
            let url = Bundle.module.url(
                forResource: "attestation-objects", withExtension: "json", subdirectory: "Resources"),
            let data = try? Data(contentsOf: url),
            let file = try? JSONDecoder().decode(File.self, from: data)
        else {
            preconditionFailure("Resources/attestation-objects.json is missing or malformed")
        }
        return file.vectors
    }()
}
