import Foundation
import Testing
import UMFATestSupport

@testable import UMFAWebAuthn
@testable import UMFAWebAuthnModel

/// The fast reading of `clientDataJSON` may only ever answer what the full JSON parse answers.
@Suite("Client data: the fast path agrees with the full parse")
struct ClientDataFastPathTests {
    static let samples: [String] = [
        // Chrome, with its member that warns against templates.
        #"{"type":"webauthn.get","challenge":"dGhlLWNoYWxsZW5nZQ","origin":"https://example.com","crossOrigin":false,"other_keys_can_be_added_here":"do not compare clientDataJSON against a template. See https://goo.gl/yabPex"}"#,
        // Firefox and Safari shapes.
        #"{"challenge":"dGhlLWNoYWxsZW5nZQ","clientExtensions":{},"hashAlgorithm":"SHA-256","origin":"https://example.com","type":"webauthn.create"}"#,
        #"{"type":"webauthn.create","challenge":"dGhlLWNoYWxsZW5nZQ","origin":"https://example.com"}"#,
        // An iframe, an Android app origin, whitespace everywhere.
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"https://pay.example","crossOrigin":true,"topOrigin":"https://shop.example"}"#,
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"android:apk-key-hash:abc_DEF-123"}"#,
        " \n\t{ \"type\" : \"webauthn.get\" ,\r\n \"challenge\":\"YWJj\", \"origin\" : \"https://ex\u{e4}mple.com\" } \n",
        // Shapes the fast path leaves to the full parse.
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"https:\/\/example.com"}"#,
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"https://example.com","crossOrigin":null}"#,
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"https://example.com","tokenBinding":{"status":"present"}}"#,
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"https://a.example","origin":"https://b.example"}"#,
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"https://example.com","count":1}"#,
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"https://example.com","crossOrigin":"false"}"#,
        #"{"type":"webauthn.get","challenge":"YWJj","origin":"https://example.com"} trailing"#,
        #"{"type":"webauthn.get","challenge":"YWJj"}"#,
        #"["webauthn.get"]"#, "{}", "",
    ]

    /// The full parse of `text`, or `nil` where it refuses.
    private func full(_ bytes: [UInt8]) -> CollectedClientData? {
        try? CollectedClientData.fullyParsed(rawBytes: bytes, body: bytes[...], parseStep: nil)
    }

    /// Checks one input; answers whether the fast path took it.
    @discardableResult
    private func expectAgreement(_ bytes: [UInt8], _ label: @autoclosure () -> String) -> Bool {
        guard let fast = ClientDataFastPath.read(bytes[...]) else { return false }
        let parsed = full(bytes)
        #expect(parsed != nil, "the fast path took what the full parse refuses: \(label())")
        guard let parsed else { return true }
        #expect(
            fast
                == ClientDataFastPath.Members(
                    type: parsed.type, challenge: parsed.challenge, origin: parsed.origin,
                    crossOrigin: parsed.crossOrigin, topOrigin: parsed.topOrigin), "\(label())")
        return true
    }

    @Test("browser-shaped client data takes the fast path; escapes, null, nesting, repeats and numbers do not")
    func whichShapesAreFast() {
        let fast = Self.samples.map { ClientDataFastPath.read(Array($0.utf8)[...]) != nil }
        #expect(fast == [true, false, true, true, true, true] + Array(repeating: false, count: 11))
        for sample in Self.samples { expectAgreement(Array(sample.utf8), sample) }
    }

    /// Names are told apart by their bytes. Two spellings of one name (precomposed and
    /// decomposed "é") are two members to the fast path; the full parse must then accept them
    /// and give the same answer, which this checks.
    @Test("member names that are the same text in different bytes")
    func canonicallyEquivalentNames() {
        let text =
            #"{"type":"webauthn.get","challenge":"YWJj","origin":"https://example.com","#
            + #""caf\#u{E9}":"a","cafe\#u{301}":"b"}"#
        #expect(expectAgreement(Array(text.utf8), text), "the fast path takes it")
    }

    @Test("every prefix of every sample: the fast path answers only what the full parse answers")
    func prefixes() {
        for sample in Self.samples {
            let bytes = Array(sample.utf8)
            for length in 0...bytes.count { expectAgreement(Array(bytes[..<length]), "\(sample) [..<\(length)]") }
        }
    }

    @Test("200,000 seeded mutations: byte changes, insertions and deletions of JSON punctuation")
    func mutations() {
        var generator = SeededGenerator(seed: 0xC11E_47DA_7A00)
        let alphabet = Array(#"{}[]":,\ tfrue0123456789-nlabcé"#.utf8) + [0x0A, 0x00, 0x1F, 0xC3, 0xFF]
        var compared = 0
        for round in 0..<200_000 {
            var bytes = Array(Self.samples[round % Self.samples.count].utf8)
            generator.mutate(&bytes, alphabet: alphabet)
            guard String(validating: bytes, as: UTF8.self) != nil, !bytes.contains(0) else { continue }
            if expectAgreement(bytes, String(decoding: bytes, as: UTF8.self)) { compared += 1 }
        }
        // The mutations must reach the fast path often, or the agreement above proves little.
        #expect(compared > 10_000, "\(compared) mutated inputs took the fast path")
    }
}
