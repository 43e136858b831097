import Foundation
import UMFAEncoding

/// How values are written to columns so that the same SQL works on SQLite and PostgreSQL:
/// bytes as base64url text, times as integer milliseconds since 1970, lists as JSON text.
enum StoredValue {
    static func text(_ bytes: [UInt8]) -> String {
        Base64URL.encode(bytes)
    }

    static func bytes(_ text: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else {
            throw StoreError(.corrupt, "a stored byte string is not base64url")
        }
        return bytes
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func json(_ list: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(list), as: UTF8.self)) ?? "[]"
    }

    /// `value` as JSON text, for a column holding a small structured value.
    static func json(encoding value: some Encodable) -> String {
        (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? "null"
    }

    /// A value stored by ``json(encoding:)``; anything else is a damaged row.
    static func decoded<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(.corrupt, "a stored value is not the JSON expected")
        }
    }

    static func list(_ text: String) throws -> [String] {
        if let plain = plainList(text) { return plain }
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw StoreError(.corrupt, "a stored list is not a JSON array of strings")
        }
    }

    /// The list as ``json(_:)`` writes it when no string needs an escape but `\/` —
    /// `["a","https:\/\/b"]`, no spaces; `JSONEncoder` writes every `/` as `\/`, and an
    /// application's origins are read on every sign-in — read without a JSON decoder; `nil` for
    /// anything else, which the decoder then reads.
    static func plainList(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            let quote = UInt8(ascii: "\"")
            let comma = UInt8(ascii: ",")
            guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else {
                return nil
            }
            var items: [String] = []
            var index = 1
            let end = bytes.count - 1
            while index < end {
                guard bytes[index] == quote else { return nil }
                guard let close = bytes[(index + 1)..<end].firstIndex(of: quote) else { return nil }
                let item = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<close])
                // JSON strings hold no raw control characters.
                guard !item.contains(where: { $0 < 0x20 }), let string = unescapingSlashes(item) else { return nil }
                items.append(string)
                index = close + 1
                if index < end {
                    guard bytes[index] == comma, index + 1 < end else { return nil }
                    index += 1
                }
            }
            return items
        }
    }

    /// The UTF-8 text of one JSON string's contents whose only escape is `\/`; `nil` for any
    /// other escape (a `\"` included, so the quote that ended `item` really ends the string).
    private static func unescapingSlashes(_ item: UnsafeBufferPointer<UInt8>) -> String? {
        let backslash = UInt8(ascii: "\\")
        guard item.contains(backslash) else { return String(validating: item, as: UTF8.self) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(item.count)
        var position = 0
        while position < item.count {
            if item[position] == backslash {
                guard position + 1 < item.count, item[position + 1] == UInt8(ascii: "/") else { return nil }
                position += 1
            }
            unescaped.append(item[position])
            position += 1
        }
        return String(validating: unescaped, as: UTF8.self)
    }
}
