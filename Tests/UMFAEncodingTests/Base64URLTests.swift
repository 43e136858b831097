import Foundation
import Testing
import UMFAEncoding

/// The base64url codec every WebAuthn JSON field goes through (RFC 4648 §5, written without
/// padding, read with or without it and in either alphabet).
struct Base64URLTests {
    /// RFC 4648 §10 test vectors, with the padding removed as base64url writes them.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) throws {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        let padded = encoded + String(repeating: "=", count: (4 - encoded.count % 4) % 4)
        #expect(Base64URL.decode(padded) == Array(plain.utf8))
    }

    @Test func everyByteValueAndLengthRoundTripsAndAgreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(encoded == foundation)
            #expect(Base64URL.decode(encoded) == bytes)
            // Contiguous inputs are written from their storage, other sequences through a copy.
            #expect(Base64URL.encode(Data(bytes)) == foundation)
            #expect(Base64URL.encode(([0xAA] + bytes).dropFirst()) == foundation)
            #expect(Base64URL.encode(AnySequence(bytes)) == foundation)
        }
        let all = Data(Array(0...255)).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(Base64URL.encode(Array(0...255)) == all)
    }

    @Test func standardAlphabetIsReadToo() {
        #expect(Base64URL.decode("-_-_") == Base64URL.decode("+/+/"))
        #expect(Base64URL.decode("+/+/") == [0xFB, 0xFF, 0xBF])
    }

    @Test(arguments: ["A", "AAAAA", "Zm9v!", "Zm 9v", "Zm9v\n", "é", "Zm=9v"])
    func malformedTextIsRefused(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
