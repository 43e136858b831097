import ArgumentParser
import Crypto
import Foundation
import _CryptoExtras

/// The crypto ceiling of one login: one P-256 verification (the assertion) plus one RS256
/// signature (the login token), measured on one core in this process.
struct CeilingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ceiling", abstract: "P-256 verify + RS256 sign per second on one core.")

    @Option(help: "Seconds per measurement.") var seconds: Double = 3

    func run() throws {
        let p256 = P256.Signing.PrivateKey()
        let message = Data(SHA256.hash(data: Data("umfa ceiling".utf8)))
        let signature = try p256.signature(for: message)
        let verify = try Measure.rate(seconds: seconds) { _ in
            guard p256.publicKey.isValidSignature(signature, for: message) else {
                throw ValidationError("P-256 verification failed")
            }
        }
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let sign = try Measure.rate(seconds: seconds) { _ in
            _ = try rsa.signature(for: message, padding: .insecurePKCS1v1_5)
        }
        let perLogin = 1 / verify + 1 / sign
        try printJSON([
            "p256_verify_per_second": verify,
            "rs256_sign_per_second": sign,
            "logins_per_second_per_core": 1 / perLogin,
        ])
    }
}
