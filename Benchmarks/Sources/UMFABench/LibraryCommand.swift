import ArgumentParser
import Crypto
import Foundation
import UMFAAuthenticator
import UMFAWebAuthn

/// Library figures: §7.2 assertion and §7.1 registration verification per second on one core,
/// beside raw P-256 verification of the same signatures in the same process.
struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "Verification per second: UMFAWebAuthn vs raw P-256.")

    @Option(help: "Seconds per measurement.") var seconds: Double = 3
    @Option(help: "Distinct responses prepared per kind.") var responses: Int = 256
    @Option(help: "Write the prepared responses here for the py_webauthn comparison.") var vectors: String?

    func run() async throws {
        let fixture = try await LibraryFixture.make(count: responses)
        let rawP256 = try Measure.rate(seconds: seconds) { index in
            let input = fixture.rawInputs[index % fixture.rawInputs.count]
            guard input.key.isValidSignature(input.signature, for: input.message) else {
                throw ValidationError("raw P-256 verification failed")
            }
        }
        let authenticationVerifier = AuthenticationVerifier(policy: fixture.policy)
        let assertions = try Measure.rate(seconds: seconds) { index in
            let assertion = fixture.assertions[index % fixture.assertions.count]
            _ = try authenticationVerifier.verify(
                assertion.response, expectedChallenge: assertion.challenge, credential: fixture.record)
        }
        let registrationVerifier = RegistrationVerifier(policy: fixture.policy)
        var registrations: [String: Double] = [:]
        for (format, prepared) in [("none", fixture.noneRegistrations), ("packed", fixture.packedRegistrations)] {
            registrations[format] = try await Measure.rateAsync(seconds: seconds) { index in
                let registration = prepared[index % prepared.count]
                _ = try await registrationVerifier.verify(
                    registration.response, expectedChallenge: registration.challenge)
            }
        }
        if let vectors { try fixture.writeVectors(to: vectors) }
        try printJSON([
            "raw_p256_verify_per_second": rawP256,
            "assertion_verify_per_second": assertions,
            "assertion_vs_raw_p256": assertions / rawP256,
            "registration_none_verify_per_second": registrations["none"] ?? 0,
            "registration_packed_verify_per_second": registrations["packed"] ?? 0,
            "seconds_per_measurement": seconds,
        ])
    }
}
