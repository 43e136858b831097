import Crypto
import Foundation
import Testing
import UMFATestSupport

@testable import UMFAWebAuthn
@testable import UMFAWebAuthnModel

/// The DER reader of ECDSA signatures gives exactly what swift-crypto's parser gives, or defers
/// to it: never a different `r ‖ s`, never one swift-crypto would refuse.
struct ECDSASignatureDERTests {
    static func signatures(_ count: Int) throws -> [[UInt8]] {
        let key = P256.Signing.PrivateKey()
        return try (0..<count).map { index in
            [UInt8](try key.signature(for: Data("message \(index)".utf8)).derRepresentation)
        }
    }

    @Test func realSignaturesAreReadAsSwiftCryptoReadsThem() throws {
        for der in try Self.signatures(500) {
            let raw = try #require(ECDSASignatureDER.raw(der, size: 32))
            #expect(raw == [UInt8](try P256.Signing.ECDSASignature(derRepresentation: der).rawRepresentation))
        }
        let p384 = P384.Signing.PrivateKey()
        for index in 0..<100 {
            let der = [UInt8](try p384.signature(for: Data("m\(index)".utf8)).derRepresentation)
            let raw = try #require(ECDSASignatureDER.raw(der, size: 48))
            #expect(raw == [UInt8](try P384.Signing.ECDSASignature(derRepresentation: der).rawRepresentation))
        }
    }

    @Test(
        arguments: [
            [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01],  // r = 0 (left to swift-crypto)
            [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01],  // negative r
            [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01],  // non-minimal r
            [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00],  // trailing byte inside
            [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01],  // short
            [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],  // not a SEQUENCE
        ] as [[UInt8]])
    func oddShapesAreLeftToSwiftCrypto(der: [UInt8]) {
        #expect(ECDSASignatureDER.raw(der, size: 32) == nil)
    }

    /// 100,000 seeded mutations of real signatures: wherever the reader answers, swift-crypto
    /// accepts the same bytes and reads the same `r ‖ s`.
    @Test func mutationsNeverDisagreeWithSwiftCrypto() throws {
        var generator = SeededGenerator(seed: 0xEC_D5A)
        let originals = try Self.signatures(64)
        var read = 0
        for round in 0..<100_000 {
            var der = originals[round % originals.count]
            for _ in 0..<Int.random(in: 1...2, using: &generator) {
                let position = Int.random(in: 0..<der.count, using: &generator)
                let byte = [0x00, 0x01, 0x02, 0x30, 0x7F, 0x80, 0xFF, UInt8.random(in: 0...255, using: &generator)]
                    .randomElement(using: &generator)!
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: der[position] = byte
                case 1: der.insert(byte, at: position)
                default: if der.count > 1 { der.remove(at: position) }
                }
            }
            guard let raw = ECDSASignatureDER.raw(der, size: 32) else { continue }
            read += 1
            let parsed = try? P256.Signing.ECDSASignature(derRepresentation: der)
            #expect(parsed.map { [UInt8]($0.rawRepresentation) } == raw, "\(der)")
        }
        #expect(read > 1000)
    }
}
