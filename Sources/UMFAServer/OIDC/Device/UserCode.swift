/// The end-user code of the device grant (RFC 8628 §6.1): eight letters from twenty consonants
/// (no vowels, so no words; no `Y`), about 34.6 bits, shown as `XXXX-XXXX`. A person may type it in
/// any case, with or without the dash or spaces; guesses are limited per address
/// (``AbuseGuard/userCodeGuess(_:_:)``) and a code lives ten minutes.
enum UserCode {
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ".utf8)
    static let length = 8

    /// A new random code, in its displayed form.
    static func generate() -> String {
        var letters: [UInt8] = []
        while letters.count < length {
            // 240 = 12 × 20: bytes above it would favour the first letters.
            for byte in Secrets.randomBytes(length * 2) where byte < 240 && letters.count < length {
                letters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return display(String(decoding: letters, as: UTF8.self))
    }

    /// The code as typed, reduced to its eight letters, upper case; `nil` when it cannot be a code
    /// (another letter, another length).
    static func normalize(_ typed: String) -> String? {
        guard typed.utf8.count <= 32 else { return nil }
        var letters: [UInt8] = []
        for byte in typed.utf8 {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"): letters.append(byte - 32)
            default: letters.append(byte)
            }
        }
        guard letters.count == length, letters.allSatisfy(alphabet.contains) else { return nil }
        return String(decoding: letters, as: UTF8.self)
    }

    /// `XXXX-XXXX` of a normalised code.
    static func display(_ code: String) -> String {
        let letters = Array(code.utf8)
        guard letters.count == length else { return code }
        return String(decoding: letters[..<4], as: UTF8.self) + "-" + String(decoding: letters[4...], as: UTF8.self)
    }
}
