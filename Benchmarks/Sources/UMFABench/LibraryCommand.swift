import ArgumentParser
import Crypto
import Foundation
import UMFAAuthenticator
import UMFAWebAuthn

/// Library figures: §7.2 assertion and §7.1 registration verification per second on one core,
/// beside raw P-256 verification of the same signatures in the same process.
///
/// The figures are taken in many short rounds, raw P-256 and assertion verification measured
/// back to back in each (which goes first alternates), so that whatever else the shared machine
/// runs at a moment weighs on both. The ratio is the median of the rounds' own ratios; the
/// rates are each the best round's. Best-of figures alone let one lucky round of either side
/// move the ratio by several percent.
struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "Verification per second: UMFAWebAuthn vs raw P-256.")

    @Option(help: "Seconds per figure, spread over the rounds.") var seconds: Double = 3
    @Option(help: "Rounds per figure.") var rounds: Int = 15
    @Option(help: "Distinct responses prepared per kind.") var responses: Int = 256
    @Option(help: "Write the prepared responses here for the py_webauthn comparison.") var vectors: String?

    func run() async throws {
        let fixture = try await LibraryFixture.make(count: responses)
        let rounds = max(rounds, 1)
        let round = seconds / Double(rounds)
        let authenticationVerifier = AuthenticationVerifier(policy: fixture.policy)
        let registrationVerifier = RegistrationVerifier(policy: fixture.policy)
        func rawRate() throws -> Double {
            try Measure.rate(seconds: round) { index in
                let input = fixture.rawInputs[index % fixture.rawInputs.count]
                guard input.key.isValidSignature(input.signature, for: input.message) else {
                    throw ValidationError("raw P-256 verification failed")
                }
            }
        }
        func assertionRate() throws -> Double {
            try Measure.rate(seconds: round) { index in
                let assertion = fixture.assertions[index % fixture.assertions.count]
                _ = try authenticationVerifier.verify(
                    assertion.response, expectedChallenge: assertion.challenge, credential: fixture.record)
            }
        }
        var rawP256 = 0.0
        var assertions = 0.0
        var ratios: [Double] = []
        var registrations: [String: Double] = [:]
        for index in 0..<rounds {
            let (raw, assertion): (Double, Double)
            if index.isMultiple(of: 2) {
                raw = try rawRate()
                assertion = try assertionRate()
            } else {
                assertion = try assertionRate()
                raw = try rawRate()
            }
            rawP256 = max(rawP256, raw)
            assertions = max(assertions, assertion)
            ratios.append(assertion / raw)
            for (format, prepared) in [("none", fixture.noneRegistrations), ("packed", fixture.packedRegistrations)] {
                let rate = try await Measure.rateAsync(seconds: round) { index in
                    let registration = prepared[index % prepared.count]
                    _ = try await registrationVerifier.verify(
                        registration.response, expectedChallenge: registration.challenge)
                }
                registrations[format] = max(registrations[format] ?? 0, rate)
            }
        }
        ratios.sort()
        if let vectors { try fixture.writeVectors(to: vectors) }
        try printJSON([
            "raw_p256_verify_per_second": rawP256,
            "assertion_verify_per_second": assertions,
            "assertion_vs_raw_p256": ratios[ratios.count / 2],
            "assertion_vs_raw_p256_lowest_round": ratios[0],
            "assertion_vs_raw_p256_highest_round": ratios[ratios.count - 1],
            "assertion_vs_raw_p256_best_rates": assertions / rawP256,
            "registration_none_verify_per_second": registrations["none"] ?? 0,
            "registration_packed_verify_per_second": registrations["packed"] ?? 0,
            "seconds_per_measurement": seconds, "rounds": rounds,
        ])
    }
}
