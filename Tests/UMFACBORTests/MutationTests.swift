import Testing
import UMFACBOR
import UMFATestSupport

@Suite("Mutated attestation objects")
struct MutationTests {
    /// Heads that change how the rest of the input is read.
    private static let interestingBytes: [UInt8] = [
        0x18, 0x1b, 0x1c, 0x1f, 0x3b, 0x5b, 0x5f, 0x7b, 0x7f, 0x80, 0x9b, 0x9f, 0xa0, 0xbb, 0xbf, 0xc0, 0xdb,
        0xf8, 0xf9, 0xfa, 0xfb, 0xff,
    ]

    /// One random change: bit flips, a truncation, an insertion, a deletion, an overwrite with a
    /// significant head, or a repeated run of bytes.
    private static func mutate(_ input: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var output = input
        let position = Int.random(in: 0..<output.count, using: &generator)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0:
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let flipped = Int.random(in: 0..<output.count, using: &generator)
                output[flipped] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
            }
        case 1:
            output.removeSubrange(position...)
        case 2:
            let inserted = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                UInt8.random(in: .min ... .max, using: &generator)
            }
            output.insert(contentsOf: inserted, at: position)
        case 3:
            output.removeSubrange(position..<min(output.count, position + Int.random(in: 1...4, using: &generator)))
        case 4:
            output[position] = interestingBytes.randomElement(using: &generator) ?? 0xff
        default:
            let end = min(output.count, position + Int.random(in: 1...16, using: &generator))
            output.insert(contentsOf: output[position..<end], at: end)
        }
        return output
    }

    @Test("20 000 mutations never trap, and every accepted value survives a round trip")
    func mutations() {
        let originals = AttestationVector.all.map(\.attestationObject)
        var generator = SeededGenerator(seed: 0xC0DE_CB08)
        let decoder = CBORDecoder()
        var accepted = 0
        var codes: [CBORError.Code: Int] = [:]
        var roundTripFailures: [String] = []

        for index in 0..<20_000 {
            var input = originals[index % originals.count]
            // Stack a few mutations now and then so that damage compounds.
            for _ in 0..<(index.isMultiple(of: 5) ? 3 : 1) where !input.isEmpty {
                input = Self.mutate(input, using: &generator)
            }
            let value: CBORValue
            do {
                value = try decoder.decode(input)
            } catch {
                codes[error.code, default: 0] += 1
                continue
            }
            accepted += 1
            let reencoded = CBOREncoder.encode(value)
            do {
                let again = try decoder.decode(reencoded)
                if again != value || CBOREncoder.encode(again) != reencoded {
                    roundTripFailures.append(hex(input))
                }
            } catch {
                roundTripFailures.append("\(hex(input)): \(error)")
            }
        }

        #expect(roundTripFailures.isEmpty, "\(roundTripFailures.count) failed, first: \(roundTripFailures.first ?? "")")
        // The mix must exercise both outcomes and most kinds of refusal to mean anything.
        #expect(accepted > 1_000)
        #expect(codes.values.reduce(0, +) > 5_000)
        #expect(
            Set(codes.keys).isSuperset(of: [
                .truncated, .trailingBytes, .indefiniteLength, .malformedHeader, .invalidUTF8,
            ]),
            "\(codes)")
    }

    @Test("random bytes never trap")
    func randomBytes() {
        var generator = SeededGenerator(seed: 42)
        let decoder = CBORDecoder()
        var roundTripFailures = 0
        var accepted = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &generator)
            let input = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            guard let value = try? decoder.decode(input) else { continue }
            accepted += 1
            if (try? decoder.decode(CBOREncoder.encode(value))) != value { roundTripFailures += 1 }
        }
        #expect(accepted > 100)
        #expect(roundTripFailures == 0)
    }
}
