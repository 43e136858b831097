import Foundation
import Testing
import UMFATestSupport

@testable import UMFATokens

/// The fast reading of a login token's claims may only ever answer what `JSONDecoder` answers.
@Suite("Login token claims: the fast path agrees with JSONDecoder")
struct LoginClaimsFastPathTests {
    /// Claims as the server issues them, in both key orders.
    static var issued: [String] {
        let claims = LoginTokenClaims(
            iss: "UMFA::Authenticator", sub: LoginTokenClaims.subject,
            aud: ["UMFA::Authenticator", "0b7c8a52-3d1e-4f5a-9c2b-7e6d5f4a3b21"], iat: 1_767_225_600,
            exp: 1_767_225_900, jti: "3F2504E0-4F89-11D3-9A0C-0305E82C3301", userID: "alice@example.com",
            applicationID: "0b7c8a52-3d1e-4f5a-9c2b-7e6d5f4a3b21", credentialID: "AQIDBAUGBwgJCgsMDQ4PEA",
            webauthnTime: "2026-01-01T00:00:00.123Z", userpwTime: nil, amr: ["hwk", "user"])
        var withPassword = claims
        withPassword.userpwTime = "2025-12-31T23:59:59.000Z"
        withPassword.userID = "J\u{F6}rg \u{1F511}"
        return [claims, withPassword].flatMap { claims in
            [JSONEncoder.OutputFormatting(), [.sortedKeys]].map { format in
                let encoder = JSONEncoder()
                encoder.outputFormatting = format.union(.withoutEscapingSlashes)
                // An encoding failure leaves an empty sample, which the shape test refuses.
                return (try? encoder.encode(claims)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            }
        }
    }

    static let others: [String] = [
        // aud as one string, whitespace, members this server does not read.
        " {\n \"iss\" : \"i\", \"aud\" : \"app\", \"iat\" : 0, \"exp\" : 99, \"amr\" : [ ], \"x\": true, \"y\": [\"a\"], \"z\": 12 }\t",
        #"{}"#,
        // Shapes left to JSONDecoder (accepted or refused there).
        #"{"iss":"a\/b","sub":"s"}"#,
        #"{"iss":"i","userpw_time":null}"#,
        #"{"iss":"i","iat":1767225600.5}"#,
        #"{"iss":"i","iat":1.7e9}"#,
        #"{"iss":"i","iat":-1}"#,
        #"{"iss":"i","iat":0123}"#,
        #"{"iss":"i","iat":1234567890123456}"#,
        #"{"iss":"a","iss":"b"}"#,
        #"{"iss":"i","extra":{"a":1}}"#,
        #"{"iss":"i","aud":["a",1]}"#,
        #"{"iss":5}"#,
        #"{"iat":"5"}"#,
        #"{"amr":"hwk"}"#,
        #"{"iss":"i"} trailing"#,
        #"["iss"]"#, "",
    ]

    static var samples: [String] { issued + others }

    /// Checks one input; answers whether the fast path took it.
    @discardableResult
    private func expectAgreement(_ bytes: [UInt8], _ label: @autoclosure () -> String) -> Bool {
        guard let fast = LoginClaimsFastPath.read(Data(bytes)) else { return false }
        let full = try? JSONDecoder().decode(ReceivedLoginClaims.self, from: Data(bytes))
        #expect(full != nil, "the fast path took what JSONDecoder refuses: \(label())")
        #expect(full == nil || fast == full, "\(label())")
        return true
    }

    @Test("issued claims take the fast path; escapes, null, fractions, repeats, nesting and wrong types do not")
    func whichShapesAreFast() throws {
        let fast = Self.samples.map { LoginClaimsFastPath.read(Data($0.utf8)) != nil }
        #expect(fast == Array(repeating: true, count: Self.issued.count + 2) + Array(repeating: false, count: 16))
        for sample in Self.samples { expectAgreement(Array(sample.utf8), sample) }
        let issued = try #require(LoginClaimsFastPath.read(Data(Self.issued[2].utf8)))
        #expect(issued.userID == "J\u{F6}rg \u{1F511}")
        #expect(issued.aud?.values.count == 2)
    }

    @Test("every prefix of every sample: the fast path answers only what JSONDecoder answers")
    func prefixes() {
        for sample in Self.samples {
            let bytes = Array(sample.utf8)
            for length in 0...bytes.count { expectAgreement(Array(bytes[..<length]), "\(sample) [..<\(length)]") }
        }
    }

    @Test("100,000 seeded mutations, bytes that are not UTF-8 included")
    func mutations() {
        var generator = SeededGenerator(seed: 0x10C1_A1E5)
        let alphabet = Array(#"{}[]":,\ .eE-+tfrue0123456789nlaé"#.utf8) + [0x0A, 0x00, 0x1F, 0x80, 0xC3, 0xFF]
        let samples = Self.samples
        var compared = 0
        for round in 0..<100_000 {
            var bytes = Array(samples[round % samples.count].utf8)
            generator.mutate(&bytes, alphabet: alphabet)
            if expectAgreement(bytes, bytes.map { String($0, radix: 16) }.joined(separator: " ")) { compared += 1 }
        }
        // The mutations must reach the fast path often, or the agreement above proves little.
        #expect(compared > 10_000, "\(compared) mutated inputs took the fast path")
    }
}
