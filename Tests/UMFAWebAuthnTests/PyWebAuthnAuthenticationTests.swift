import Foundation
import Testing
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// py_webauthn's real-device assertions: UMFA must reach py_webauthn's verdict, except for the
/// ML-DSA keys it does not support, which it must refuse clearly.
@Suite("py_webauthn authentication vectors")
struct PyWebAuthnAuthenticationTests {
    enum Outcome: Equatable {
        case valid(newSignCount: UInt32)
        case unsupportedKey
        case refused(WebAuthnError.Code, step: String?)
    }

    static func outcome(_ vector: PyAuthenticationFile.Vector) throws -> Outcome {
        let keyBytes = try #require(Base64URL.decode(vector.credentialPublicKey))
        let alg = try CBORDecoder().decode(keyBytes).mapValue?[3]?.int64Value
        if let alg, PyWebAuthnRegistrationTests.mlDSA.contains(Int(alg)) { return .unsupportedKey }
        if vector.expected.valid { return .valid(newSignCount: try #require(vector.expected.newSignCount)) }
        switch vector.expected.errorContains {
        case "signature": return .refused(.invalidSignature, step: "7.2 step 21")
        case "user verification": return .refused(.userNotVerified, step: "7.2 step 17")
        case "authenticatorData": return .refused(.malformedResponse, step: nil)
        case "clientDataJSON": return .refused(.malformedResponse, step: "7.2 step 9")
        default: throw TestSetupError("no expectation for \(vector.name)")
        }
    }

    /// The record py_webauthn's test held: its key and counter, owned by the assertion's user.
    func record(for vector: PyAuthenticationFile.Vector, response: AuthenticationResponseJSON) throws
        -> CredentialRecord
    {
        let keyBytes = try #require(Base64URL.decode(vector.credentialPublicKey))
        let backupEligible = (try? AuthenticatorData(bytes: response.response.authenticatorData.bytes))?
            .flags.isBackupEligible
        return CredentialRecord(
            id: response.rawId.bytes, publicKey: try COSEKey(bytes: keyBytes), signCount: vector.currentSignCount,
            userHandle: response.response.userHandle?.bytes ?? Fixture.userHandle, uvInitialized: false,
            backupEligible: backupEligible ?? false, backupState: false)
    }

    @Test("each assertion gets py_webauthn's verdict", arguments: try PyAuthenticationFile.names())
    func vector(name: String) async throws {
        let vector = try #require(try PyAuthenticationFile.load().vectors.first { $0.name == name })
        let response = try vector.response.decoded(as: AuthenticationResponseJSON.self)
        let challenge = try #require(Base64URL.decode(vector.challenge))
        let outcome = try Self.outcome(vector)
        if outcome == .unsupportedKey {
            await expectWebAuthnError(.unsupportedAlgorithm, step: nil) {
                _ = try record(for: vector, response: response)
            }
            return
        }
        let stored = try record(for: vector, response: response)
        let verify = {
            try AuthenticationVerifier(policy: vector.policy).verify(
                response, expectedChallenge: challenge, credential: stored, allowCredentials: [stored.id],
                identifiedUserHandle: stored.userHandle)
        }
        switch outcome {
        case .valid(let newSignCount):
            let result = try verify()
            #expect(result.record.signCount == newSignCount)
            #expect(!result.cloneWarning)
        case .refused(let code, let step):
            await expectWebAuthnError(code, step: step) { _ = try verify() }
        case .unsupportedKey:
            Issue.record("handled above")
        }
    }

    @Test("the vectors cover passes, each kind of refusal and the ML-DSA keys")
    func coverage() throws {
        let outcomes = try PyAuthenticationFile.load().vectors.map(Self.outcome)
        #expect(outcomes.filter { if case .valid = $0 { return true } else { return false } }.count == 6)
        #expect(outcomes.filter { $0 == .unsupportedKey }.count == 3)
        #expect(outcomes.filter { if case .refused = $0 { return true } else { return false } }.count == 4)
    }
}
