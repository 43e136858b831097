import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import UMFATokens

@Suite("RS256 signer")
struct RS256SignerTests {
    static let key = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    /// swift-crypto's own RS256 signature, the reference for the system libcrypto's.
    static func boringSSLSignature(_ key: _RSA.Signing.PrivateKey, _ input: Data) throws -> Data {
        try key.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation
    }

    @Test("a Linux build signs RS256 through the system libcrypto, and any other through swift-crypto")
    func library() throws {
        let signer = RS256Signer(try Self.key.get())
        #if UMFA_SYSTEM_LIBCRYPTO
            #expect(signer.library.hasPrefix("OpenSSL 3."))
            #expect(signer.library.hasSuffix("(system libcrypto)"))
        #else
            #expect(signer.library == "swift-crypto (BoringSSL)")
        #endif
    }

    @Test(
        "its signatures are byte for byte swift-crypto's (PKCS #1 v1.5 is deterministic) and verify",
        arguments: [0, 1, 55, 56, 64, 400, 4_096])
    func sameBytes(length: Int) throws {
        let key = try Self.key.get()
        let input = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let signature = try RS256Signer(key).signature(for: input)
        #expect(signature.count == 256)
        #expect(signature == (try Self.boringSSLSignature(key, input)))
        #expect(
            key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
                padding: .insecurePKCS1v1_5))
    }

    @Test("a key stored and read back signs through the same path as the token service's")
    func storedKey() throws {
        let generated = try TokenKeyMaterial(generating: .rs256)
        let loaded = try TokenKeyMaterial(algorithm: .rs256, privateKeyBytes: generated.privateKeyBytes)
        guard case .rsa(let signer, _) = loaded else {
            Issue.record("an RS256 key read back as \(loaded.algorithm)")
            return
        }
        let input = Data("eyJhbGciOiJSUzI1NiJ9.e30".utf8)
        let signature = try loaded.signature(for: input)
        #expect(signature == (try Self.boringSSLSignature(signer.key, input)))
        #expect(loaded.isValidSignature(signature, for: input))
        #expect(generated.isValidSignature(signature, for: input))
    }

    @Test("many tasks signing with one key at once each get a valid signature")
    func concurrentSigning() async throws {
        let key = try Self.key.get()
        let signer = RS256Signer(key)
        let valid = try await withThrowingTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var all = true
                    for round in 0..<25 {
                        let input = Data("task \(task) round \(round)".utf8)
                        let same = try signer.signature(for: input) == Self.boringSSLSignature(key, input)
                        all = all && same
                    }
                    return all
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(valid == 8)
    }
}
