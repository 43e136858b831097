import ArgumentParser
import Crypto
import Foundation
import UMFAAuthenticator
import UMFAWebAuthn

/// Library figures: §7.2 assertion and §7.1 registration verification per second on one core,
/// beside raw P-256 verification of the same signatures in the same process.
///
/// Each figure is the best of several short rounds, the rounds of raw P-256 and of assertion
/// verification alternating: on a shared machine a single long run picks up whatever else
/// was running at that moment, and the ratio with it.
struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "Verification per second: UMFAWebAuthn vs raw P-256.")

    @Option(help: "Seconds per figure, spread over the rounds.") var seconds: Double = 3
    @Option(help: "Rounds per figure; the best round counts.") var rounds: Int = 5
    @Option(help: "Distinct responses prepared per kind.") var responses: Int = 256
    @Option(help: "Write the prepared responses here for the py_webauthn comparison.") var vectors: String?

    func run() async throws {
        let fixture = try await LibraryFixture.make(count: responses)
        let round = seconds / Double(max(rounds, 1))
        let authenticationVerifier = AuthenticationVerifier(policy: fixture.policy)
        let registrationVerifier = RegistrationVerifier(policy: fixture.policy)
        var rawP256 = 0.0
        var assertions = 0.0
        var registrations: [String: Double] = [:]
        for _ in 0..<max(rounds, 1) {
            rawP256 = max(
                rawP256,
                try Measure.rate(seconds: round) { index in
                    let input = fixture.rawInputs[index % fixture.rawInputs.count]
                    guard input.key.isValidSignature(input.signature, for: input.message) else {
                        throw ValidationError("raw P-256 verification failed")
                    }
                })
            assertions = max(
                assertions,
                try Measure.rate(seconds: round) { index in
                    let assertion = fixture.assertions[index % fixture.assertions.count]
                    _ = try authenticationVerifier.verify(
                        assertion.response, expectedChallenge: assertion.challenge, credential: fixture.record)
                })
            for (format, prepared) in [("none", fixture.noneRegistrations), ("packed", fixture.packedRegistrations)] {
                let rate = try await Measure.rateAsync(seconds: round) { index in
                    let registration = prepared[index % prepared.count]
                    _ = try await registrationVerifier.verify(
                        registration.response, expectedChallenge: registration.challenge)
                }
                registrations[format] = max(registrations[format] ?? 0, rate)
            }
        }
        if let vectors { try fixture.writeVectors(to: vectors) }
        try printJSON([
            "raw_p256_verify_per_second": rawP256,
            "assertion_verify_per_second": assertions,
            "assertion_vs_raw_p256": assertions / rawP256,
            "registration_none_verify_per_second": registrations["none"] ?? 0,
            "registration_packed_verify_per_second": registrations["packed"] ?? 0,
            "seconds_per_measurement": seconds, "rounds": rounds,
        ])
    }
}
