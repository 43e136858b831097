import ArgumentParser
import Crypto
import Foundation
import UMFAEncoding
import UMFAJOSE
import UMFATokens
import _CryptoExtras

/// The crypto floor of the operations `scripts/bench.sh --cpu` measures, in this process on one
/// core: swift-crypto's raw operations, and the same signatures through UMFA's own JWS signer
/// (`JWSCompactSerialization` over a parsed key, as the server signs: RS256 through
/// `RS256Signer`, the system libcrypto in a Linux build), so the two can be set beside
/// `openssl speed` taken in the same run.
struct FloorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor", abstract: "swift-crypto and UMFA's JWS signer: operations per second on one core.")

    @Option(help: "Seconds per measurement.") var seconds: Double = 2
    @Option(help: "Rounds (the best of each is kept).") var rounds: Int = 3

    func run() throws {
        let message = Data(SHA256.hash(data: Data("umfa floor".utf8)))
        let p256 = P256.Signing.PrivateKey()
        let p256Signature = try p256.signature(for: message)
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rs256 = RS256Signer(rsa)
        let ed25519 = Curve25519.Signing.PrivateKey()
        // A login token's size: a header and about 400 bytes of claims.
        let header = Base64URL.encode(Data(#"{"alg":"RS256","kid":"k","typ":"JWT"}"#.utf8))
        let payload = Data(repeating: UInt8(ascii: "a"), count: 400)
        let figures: [(String, () throws -> Void)] = [
            (
                "p256_verify",
                {
                    guard p256.publicKey.isValidSignature(p256Signature, for: message) else {
                        throw ValidationError("P-256 verification failed")
                    }
                }
            ),
            ("p256_sign", { _ = try p256.signature(for: message) }),
            ("ed25519_sign", { _ = try ed25519.signature(for: message) }),
            ("rsa2048_sign", { _ = try rsa.signature(for: message, padding: .insecurePKCS1v1_5) }),
            (
                "umfa_rs256_jws",
                {
                    _ = try JWSCompactSerialization.sign(
                        encodedHeader: header, payload: payload, signature: rs256.signature(for:))
                }
            ),
            (
                "umfa_es256_jws",
                { _ = try JWSCompactSerialization.sign(encodedHeader: header, payload: payload, key: .es256(p256)) }
            ),
            (
                "umfa_eddsa_jws",
                {
                    _ = try JWSCompactSerialization.sign(encodedHeader: header, payload: payload, key: .edDSA(ed25519))
                }
            ),
        ]
        var best: [String: Double] = [:]
        // Rounds interleave the figures, so a slow moment of a shared machine hits them alike.
        for _ in 0..<max(1, rounds) {
            for (name, body) in figures {
                let rate = try Measure.rate(seconds: seconds) { _ in try body() }
                best[name] = max(best[name] ?? 0, rate)
            }
        }
        var printed = best.mapValues { $0 as Any }
        printed["rs256_library"] = rs256.library
        try printJSON(printed)
    }
}
