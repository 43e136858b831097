/// Reads the common shape of `clientDataJSON` without a general JSON parser: one flat object
/// whose members are strings without escapes or booleans, each name once.
///
/// Anything else — escapes, numbers, `null`, nested values, a repeated member, a member of the
/// wrong type, a missing `type`, `challenge` or `origin` — answers `nil`, and
/// ``CollectedClientData`` reads the bytes with `JSONDecoder` instead, which decides what is
/// valid. So this path only ever gives what the full parse would give, faster: the full parse
/// was the largest cost of an assertion after the signature itself.
enum ClientDataFastPath {
    struct Members: Equatable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var topOrigin: String?
    }

    static func read(_ body: ArraySlice<UInt8>) -> Members? {
        body.withUnsafeBufferPointer { read(bytes: $0) }
    }

    private enum Value {
        case string(Range<Int>)
        case bool(Bool)
    }

    private static func read(bytes: UnsafeBufferPointer<UInt8>) -> Members? {
        var position = 0
        func skipWhitespace() {
            while position < bytes.count,
                bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A
                    || bytes[position] == 0x0D
            {
                position += 1
            }
        }
        /// A string with no escape and no control character; `nil` otherwise.
        func string() -> Range<Int>? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            let start = position + 1
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                guard bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            position = end + 1
            return start..<end
        }
        func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] { return false }
            position += count
            return true
        }
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return nil }
        position += 1
        var members: [(name: Range<Int>, value: Value)] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                guard let name = string() else { return nil }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                skipWhitespace()
                let value: Value
                if let range = string() {
                    value = .string(range)
                } else if literal("true") {
                    value = .bool(true)
                } else if literal("false") {
                    value = .bool(false)
                } else {
                    return nil
                }
                members.append((name, value))
                skipWhitespace()
                guard position < bytes.count else { return nil }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                guard bytes[position] == UInt8(ascii: "}") else { return nil }
                position += 1
                break
            }
        }
        skipWhitespace()
        guard position == bytes.count else { return nil }

        // Each name once, and the ones that matter found, by their bytes (a name here has no
        // escapes), so no name becomes a String.
        for (index, member) in members.enumerated() {
            for earlier in members[..<index] where earlier.name.count == member.name.count {
                if bytes[earlier.name].elementsEqual(bytes[member.name]) { return nil }
            }
        }
        func named(_ name: StaticString) -> Value? {
            members.first { member in
                member.name.count == name.utf8CodeUnitCount
                    && member.name.indices.allSatisfy { bytes[$0] == name.utf8Start[$0 - member.name.lowerBound] }
            }?.value
        }
        guard case .string(let type)? = named("type"), case .string(let challenge)? = named("challenge"),
            case .string(let origin)? = named("origin"), case nil = named("tokenBinding")
        else { return nil }
        let crossOrigin = named("crossOrigin")
        let topOrigin = named("topOrigin")
        var result = Members(type: text(type), challenge: text(challenge), origin: text(origin))
        switch crossOrigin {
        case nil: break
        case .bool(let value)?: result.crossOrigin = value
        case .string?: return nil
        }
        switch topOrigin {
        case nil: break
        case .string(let range)?: result.topOrigin = text(range)
        case .bool?: return nil
        }
        return result
    }
}
