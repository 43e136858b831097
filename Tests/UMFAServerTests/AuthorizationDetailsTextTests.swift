import Foundation
import Testing
import UMFAEncoding

@testable import UMFAServer

/// docs/ciba.md, "The canonical text": one text for one value, and no value whose text passes for
/// another's.
@Suite("Authorization details: the canonical text")
struct AuthorizationDetailsTextTests {
    static func text(_ json: String) throws -> String {
        try AuthorizationDetails.parse(json, types: ["payment_initiation", "account_information"]).canonicalText
    }

    @Test("leaves in byte order of their paths, the type first, strings quoted, entries apart by --")
    func layout() throws {
        let text = try Self.text(
            #"[{"type":"payment_initiation","z":1,"amount":{"value":"9.50","currency":"EUR"},"ok":true,"n":null,"list":["a","b"],"empty":{}},{"type":"account_information"}]"#
        )
        #expect(
            text == """
                type: "payment_initiation"
                amount.currency: "EUR"
                amount.value: "9.50"
                empty: {}
                list[0]: "a"
                list[1]: "b"
                n: null
                ok: true
                z: 1
                --
                type: "account_information"
                """)
    }

    @Test("a name or string that looks like a path, another type, a value or a line is quoted and escaped")
    func noLookAlikes() throws {
        let nested = try Self.text(#"[{"type":"payment_initiation","a":{"b":"2"}}]"#)
        let dotted = try Self.text(#"[{"type":"payment_initiation","a.b":"2"}]"#)
        #expect(nested.hasSuffix("\na.b: \"2\"") && dotted.hasSuffix("\n\"a.b\": \"2\"") && nested != dotted)
        // A string is never the boolean, number or null it spells.
        let typed = try Self.text(#"[{"type":"payment_initiation","a":false,"b":"false","c":42,"d":"42"}]"#)
        #expect(typed.hasSuffix("a: false\nb: \"false\"\nc: 42\nd: \"42\""), "\(typed)")
        let colon = try Self.text(#"[{"type":"payment_initiation","amount: 1000\ncreditor":"x"}]"#)
        #expect(colon == "type: \"payment_initiation\"\n\"amount: 1000\\ncreditor\": \"x\"", "\(colon)")
        let quote = try Self.text(#"[{"type":"payment_initiation","a\"b":"x","c":"\"\n--\nd: 1"}]"#)
        #expect(quote == "type: \"payment_initiation\"\n\"a\\\"b\": \"x\"\nc: \"\\\"\\n--\\nd: 1\"", "\(quote)")
        // Bidirectional and invisible scalars are written out, whatever Character they join; a
        // third combining mark on one letter is too, so marks cannot pile over other lines.
        let hidden = try Self.text(
            "[{\"type\":\"payment_initiation\",\"to\":\"Shop\u{202E}\u{301}\u{200B}\u{FEFF}x\u{336}\u{336}\u{336}\u{336}\"}]"
        )
        #expect(
            hidden.hasSuffix("to: \"Shop\\u{202E}\u{301}\\u{200B}\\u{FEFF}x\u{336}\u{336}\\u{336}\\u{336}\""),
            "\(hidden)")
    }

    @Test("limits: declared types, shapes, size, depth and count")
    func limits() throws {
        for bad in [
            #"[{"type":"other"}]"#, #"[{"type":1}]"#, #"{"type":"payment_initiation"}"#, "[]",
            #"[{"type":"payment_initiation","locations":"x"}]"#, #"[{"type":"payment_initiation","identifier":3}]"#,
            "[" + Array(repeating: #"{"type":"payment_initiation"}"#, count: 11).joined(separator: ",") + "]",
            #"[{"type":"payment_initiation","a":[[[[[[["deep"]]]]]]]}]"#,
            #"[{"type":"payment_initiation","a":""# + String(repeating: "x", count: 8200) + #""}]"#,
            // Under 8 KiB of JSON, but a long name repeated in every path of many leaves.
            #"[{"type":"payment_initiation",""# + String(repeating: "a", count: 65) + #"":1}]"#,
            #"[{"type":"payment_initiation","a":["# + Array(repeating: "0", count: 101).joined(separator: ",") + "]}]",
            // Within every count, but a text over 8 KiB: long names nested over many values.
            #"[{"type":"payment_initiation",""# + String(repeating: "a", count: 64) + #"":{""#
                + String(repeating: "b", count: 64) + #"":{""# + String(repeating: "c", count: 64) + #"":["#
                + Array(repeating: "0", count: 99).joined(separator: ",") + "]}}}]",
        ] {
            #expect(throws: AuthorizationDetails.Invalid.self, "\(bad.prefix(60))") { try Self.text(bad) }
        }
        let big = JSONValue.array([
            .object(["type": "payment_initiation", "a": .string(String(repeating: "x", count: 9000))])
        ])
        #expect(throws: AuthorizationDetails.Invalid.self) {
            try AuthorizationDetails.check(big, types: ["payment_initiation"])
        }
    }
}
