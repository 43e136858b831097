import Foundation
import Testing
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// py_webauthn's real-device registrations: UMFA must reach py_webauthn's verdict for every
/// attestation format.
@Suite("py_webauthn registration vectors")
struct PyWebAuthnRegistrationTests {
    /// ML-DSA-44/65/87, which UMFA does not verify.
    static let mlDSA: Set<Int> = [-48, -49, -50]

    enum Outcome: Equatable {
        case valid
        case refused(WebAuthnError.Code, step: String)
    }

    /// What UMFA must conclude, from py_webauthn's verdict and the reason it gave.
    static func outcome(_ vector: PyRegistrationFile.Vector) throws -> Outcome {
        if let algorithms = vector.supportedAlgorithms, algorithms.contains(where: mlDSA.contains) {
            return .refused(.unsupportedAlgorithm, step: "7.1 step 13")
        }
        if vector.expected.valid { return .valid }
        switch vector.expected.errorContains {
        case "user presence": return .refused(.userNotPresent, step: "7.1 step 15")
        case "attestation format" where vector.fmt == nil: return .refused(.malformedResponse, step: "7.1 step 13")
        case "attestation format": return .refused(.unsupportedAttestationFormat, step: "7.1 step 21")
        case "certificate chain": return .refused(.untrustedAttestation, step: "7.1 step 24")
        case "attestationObject": return .refused(.malformedResponse, step: "7.1 step 13")
        case "clientDataJSON", "token binding": return .refused(.malformedResponse, step: "7.1 step 6")
        default: throw TestSetupError("no expectation for \(vector.name): \(vector.expected.errorContains ?? "-")")
        }
    }

    func verify(_ vector: PyRegistrationFile.Vector) async throws -> VerifiedRegistration {
        let response = try vector.response.decoded(as: RegistrationResponseJSON.self)
        guard let challenge = Base64URL.decode(vector.challenge) else { throw TestSetupError("bad challenge") }
        return try await RegistrationVerifier(policy: try vector.policy).verify(
            response, expectedChallenge: challenge, at: try VectorTime.parse(vector.verificationTime) ?? Fixture.now)
    }

    @Test("each registration gets py_webauthn's verdict", arguments: try PyRegistrationFile.names())
    func vector(name: String) async throws {
        let vector = try #require(try PyRegistrationFile.load().vectors.first { $0.name == name })
        guard case .valid = try Self.outcome(vector) else {
            if case .refused(let code, let step) = try Self.outcome(vector) {
                await expectWebAuthnError(code, step: step) { _ = try await verify(vector) }
            }
            return
        }
        let result = try await verify(vector)
        let expected = vector.expected
        #expect(result.record.id == expected.credentialID.flatMap(Base64URL.decode))
        #expect(result.record.signCount == expected.signCount)
        #expect(AAGUID.string(result.record.aaguid) == expected.aaguid)
        let publicKey = try #require(expected.credentialPublicKey.flatMap(Base64URL.decode))
        #expect(result.authenticatorData.attestedCredentialData?.publicKeyBytes == publicKey)
        #expect(result.record.publicKey == (try COSEKey(bytes: publicKey)))
        #expect(result.attestation.type.rawValue == expected.attestationTypeHint)
        #expect(result.format == vector.fmt)
    }

    @Test("the vectors cover every verdict UMFA must reach")
    func coverage() throws {
        let outcomes = try PyRegistrationFile.load().vectors.map { ($0.fmt, try Self.outcome($0)) }
        let valid = outcomes.filter { $0.1 == .valid }
        #expect(
            Set(valid.compactMap(\.0))
                == ["none", "packed", "fido-u2f", "tpm", "android-key", "android-safetynet", "apple"])
        #expect(valid.count >= 17)
        #expect(outcomes.filter { $0.1 == .refused(.unsupportedAttestationFormat, step: "7.1 step 21") }.count == 1)
        #expect(outcomes.filter { $0.1 == .refused(.unsupportedAlgorithm, step: "7.1 step 13") }.count == 3)
    }
}
