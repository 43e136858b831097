import Hummingbird

/// The bearer token of a request.
enum BearerToken {
    /// The value after `Bearer ` (case-insensitive scheme), trimmed; `nil` when absent or blank.
    static func from(_ request: Request) -> String? { value(of: request, scheme: "bearer") }

    /// The device proof of `Authorization: UMFA-Device <proof>` (docs/contract.md §7).
    static func deviceProof(_ request: Request) -> String? { value(of: request, scheme: "umfa-device") }

    /// The value after `<scheme> ` (`scheme` in lower case, compared case-insensitively), trimmed.
    private static func value(of request: Request, scheme: String) -> String? {
        // On UTF-8 bytes: `split`, `lowercased` and `trimmingCharacters` on Characters cost
        // about 5 % of a validate-token request.
        guard let value = request.headers[.authorization] else { return nil }
        let bytes = value.utf8
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")),
            bytes[..<space].elementsEqual(scheme.utf8, by: { $0 | 0x20 == $1 })
        else { return nil }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let rest = bytes[bytes.index(after: space)...]
        guard let first = rest.firstIndex(where: { !isBlank($0) }), let last = rest.lastIndex(where: { !isBlank($0) })
        else { return nil }
        return String(bytes[first...last])
    }
}
