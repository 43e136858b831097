import Foundation
import Testing
import UMFAEncoding

/// The open-ended JSON of WebAuthn extensions and request bodies: each kind of value decodes to
/// its case, encodes back to the same JSON, and the accessors answer only for their kind.
struct JSONValueTests {
    static func decode(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func encode(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test(
        "each kind of value decodes to its case and encodes back to the same text",
        arguments: [
            ("null", JSONValue.null), ("true", .bool(true)), ("false", .bool(false)), ("1.5", .number(1.5)),
            ("-3", .number(-3)), (#""credProps""#, .string("credProps")), ("[]", .array([])),
            (#"[1,"a",null]"#, .array([.number(1), .string("a"), .null])), ("{}", .object([:])),
            (#"{"credProps":{"rk":true}}"#, .object(["credProps": .object(["rk": .bool(true)])])),
        ])
    func roundTrip(text: String, value: JSONValue) throws {
        #expect(try Self.decode(text) == value)
        #expect(try Self.encode(value) == text)
    }

    @Test("strings that look like numbers or booleans stay strings")
    func stringsStayStrings() throws {
        #expect(try Self.decode(#""1""#) == .string("1"))
        #expect(try Self.decode(#""true""#) == .string("true"))
        #expect(try Self.decode(#""null""#) == .string("null"))
    }

    @Test("the accessors answer for their own kind only")
    func accessors() throws {
        let object = try Self.decode(#"{"name":"alice","admin":false}"#)
        #expect(object.objectValue?["name"]?.stringValue == "alice")
        #expect(object.objectValue?["admin"]?.boolValue == false)
        #expect(object.stringValue == nil)
        #expect(object.boolValue == nil)
        #expect(JSONValue.string("x").objectValue == nil)
        #expect(JSONValue.number(1).boolValue == nil)
        #expect(JSONValue.bool(true).stringValue == nil)
    }

    @Test("text that is not JSON is refused")
    func refused() {
        #expect(throws: DecodingError.self) { try Self.decode("{") }
        #expect(throws: DecodingError.self) { try Self.decode(#"{"a" 1}"#) }
        #expect(throws: DecodingError.self) { try Self.decode("tru") }
    }
}
