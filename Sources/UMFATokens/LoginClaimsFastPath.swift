import Foundation

/// Reads the claims of a login token in the shape this server writes them, without a general
/// JSON parser: one flat object whose members are strings without escapes, whole numbers, or
/// arrays of such strings, each name once.
///
/// Anything else — escapes, `null`, fractions, exponents, signs, nested objects, a repeated
/// member, a claim of the wrong type, bytes that are not UTF-8 — answers `nil`, and
/// `JSONDecoder` reads the bytes instead and decides what is valid. So this path only ever
/// gives what the full decoding would give, faster: that decoding was the largest cost of a
/// validate-token call after the HTTP exchange itself (measured with `scripts/bench.sh`).
enum LoginClaimsFastPath {
    /// Whole numbers of up to 15 digits: every one is exactly a `Double`, as `JSONDecoder`
    /// would read it.
    private static let longestNumber = 15

    private enum Value {
        case string(Range<Int>)
        case number(Double)
        case strings([Range<Int>])
        case bool
    }

    static func read(_ payload: Data) -> ReceivedLoginClaims? {
        payload.withUnsafeBytes { read(bytes: $0.bindMemory(to: UInt8.self)) }
    }

    private static func read(bytes: UnsafeBufferPointer<UInt8>) -> ReceivedLoginClaims? {
        var reader = Reader(bytes: bytes)
        guard let members = reader.object() else { return nil }
        // Each name once: which of two the full decoding keeps is not this path's to decide.
        for (index, member) in members.enumerated() {
            for earlier in members[..<index] where bytes[earlier.name].elementsEqual(bytes[member.name]) {
                return nil
            }
        }
        func text(_ range: Range<Int>) -> String? {
            String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        var claims = ReceivedLoginClaims()
        for member in members {
            // Every name and string must be UTF-8, as the full decoding requires of the whole text.
            guard let name = text(member.name) else { return nil }
            switch (Key(rawValue: name), member.value) {
            case (nil, .string(let range)):
                guard text(range) != nil else { return nil }
            case (nil, .strings(let ranges)):
                for range in ranges where text(range) == nil { return nil }
            case (nil, _):
                break
            case (.iat?, .number(let value)):
                claims.iat = value
            case (.exp?, .number(let value)):
                claims.exp = value
            case (.aud?, .string(let range)):
                guard let value = text(range) else { return nil }
                claims.aud = .init(values: [value])
            case (.aud?, .strings(let ranges)):
                guard let values = strings(ranges, text) else { return nil }
                claims.aud = .init(values: values)
            case (.amr?, .strings(let ranges)):
                guard let values = strings(ranges, text) else { return nil }
                claims.amr = values
            case (let key?, .string(let range)):
                guard let value = text(range), key.isText else { return nil }
                claims[text: key] = value
            case (_?, _):
                return nil
            }
        }
        return claims
    }

    private static func strings(_ ranges: [Range<Int>], _ text: (Range<Int>) -> String?) -> [String]? {
        var values: [String] = []
        values.reserveCapacity(ranges.count)
        for range in ranges {
            guard let value = text(range) else { return nil }
            values.append(value)
        }
        return values
    }

    /// The claims ``ReceivedLoginClaims`` reads, by their JSON names.
    typealias Key = LoginTokenClaims.CodingKeys

    /// The restricted grammar, over bytes.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        mutating func object() -> [(name: Range<Int>, value: Value)]? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [(name: Range<Int>, value: Value)] = []
            members.reserveCapacity(12)
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    skipWhitespace()
                    guard let name = string() else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    guard let value = value() else { return nil }
                    members.append((name, value))
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) { continue }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipWhitespace()
            return position == bytes.count ? members : nil
        }

        private mutating func value() -> Value? {
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                return string().map(Value.string)
            case UInt8(ascii: "["):
                return strings().map(Value.strings)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                return number().map(Value.number)
            case UInt8(ascii: "t"):
                return literal("true") ? .bool : nil
            case UInt8(ascii: "f"):
                return literal("false") ? .bool : nil
            default:
                return nil
            }
        }

        /// A string with no escape and no control character.
        private mutating func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                guard bytes[position] != UInt8(ascii: "\\"), bytes[position] >= 0x20 else { return nil }
                position += 1
            }
            guard position < bytes.count else { return nil }
            position += 1
            return start..<(position - 1)
        }

        /// An array of such strings, possibly empty.
        private mutating func strings() -> [Range<Int>]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var ranges: [Range<Int>] = []
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return ranges }
            while true {
                skipWhitespace()
                guard let range = string() else { return nil }
                ranges.append(range)
                skipWhitespace()
                if take(UInt8(ascii: ",")) { continue }
                return take(UInt8(ascii: "]")) ? ranges : nil
            }
        }

        /// A whole number without sign, fraction, exponent or leading zero.
        private mutating func number() -> Double? {
            let start = position
            var value: Int64 = 0
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
                position += 1
                guard position - start <= LoginClaimsFastPath.longestNumber else { return nil }
            }
            if position - start > 1, bytes[start] == UInt8(ascii: "0") { return nil }
            // A fraction or an exponent goes to the full decoding.
            if position < bytes.count,
                [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position])
            {
                return nil
            }
            return Double(value)
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] { return false }
            position += count
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        private mutating func skipWhitespace() {
            while position < bytes.count,
                bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A || bytes[position] == 0x0D
            {
                position += 1
            }
        }
    }
}

extension LoginTokenClaims.CodingKeys {
    /// Whether the claim is a single string, read by ``ReceivedLoginClaims/subscript(text:)``.
    fileprivate var isText: Bool {
        switch self {
        case .aud, .iat, .exp, .amr: false
        default: true
        }
    }
}

extension ReceivedLoginClaims {
    /// The text claims by key, for ``LoginClaimsFastPath``.
    fileprivate subscript(text key: LoginClaimsFastPath.Key) -> String? {
        get {
            switch key {
            case .iss: iss
            case .sub: sub
            case .jti: jti
            case .userID: userID
            case .applicationID: applicationID
            case .credentialID: credentialID
            case .webauthnTime: webauthnTime
            case .userpwTime: userpwTime
            case .acr: acr
            case .aud, .iat, .exp, .amr: nil
            }
        }
        set {
            switch key {
            case .iss: iss = newValue
            case .sub: sub = newValue
            case .jti: jti = newValue
            case .userID: userID = newValue
            case .applicationID: applicationID = newValue
            case .credentialID: credentialID = newValue
            case .webauthnTime: webauthnTime = newValue
            case .userpwTime: userpwTime = newValue
            case .acr: acr = newValue
            case .aud, .iat, .exp, .amr: break
            }
        }
    }
}
