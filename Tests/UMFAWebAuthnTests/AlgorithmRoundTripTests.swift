import Testing
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Register, then authenticate, with every algorithm UMFA verifies and every attestation format.
@Suite("Round trips")
struct AlgorithmRoundTripTests {
    @Test("register with packed self attestation, then authenticate", arguments: TestKey.roundTripAlgorithms)
    func roundTrip(algorithm: COSEAlgorithm) async throws {
        let registration = RegistrationFactory(key: try TestKey.make(algorithm), attestation: .packedSelf)
        let verified = try await RegistrationVerifier(policy: Fixture.policy()).verify(registration)
        #expect(verified.record.publicKey.algorithm == algorithm)
        #expect(verified.attestation.type == .self)

        var assertion = AssertionFactory(for: registration)
        assertion.challenge = Array(repeating: 0xa5, count: 32)
        assertion.clientData.challenge = Base64URL.encode(assertion.challenge)
        let result = try AuthenticationVerifier(policy: Fixture.policy()).verify(assertion, record: verified.record)
        #expect(result.record.signCount == 1)

        assertion.signingKey = try TestKey.make(algorithm == .rs256 ? .es256 : .rs256)
        await expectAuthenticationFailure(.invalidSignature, step: "7.2 step 21", record: verified.record, assertion)
    }

    @Test("an RSA key signs PKCS#1 v1.5 for RS256 and PSS for PS256, never the other")
    func rsaPaddingIsBound() async throws {
        let pss = try TestKey.make(.ps256)
        let registration = RegistrationFactory(key: try TestKey.make(.rs256))
        let verified = try await RegistrationVerifier(policy: Fixture.policy()).verify(registration)
        var assertion = AssertionFactory(for: registration)
        assertion.signingKey = pss
        await expectAuthenticationFailure(.invalidSignature, step: "7.2 step 21", record: verified.record, assertion)
    }

    @Test(
        "register with every attestation format, then authenticate",
        arguments: ["none", "packed-self", "packed", "fido-u2f"])
    func everyFormat(format: String) async throws {
        let pki = try TestPKI()
        let attestation: RegistrationFactory.Attestation
        switch format {
        case "packed-self": attestation = .packedSelf
        case "packed": attestation = .packed(try pki.signer())
        case "fido-u2f": attestation = .fidoU2F(try pki.signer())
        default: attestation = .none
        }
        let registration = RegistrationFactory.es256(attestation)
        let policy = Fixture.policy { $0.trustAnchors = AttestationTrustAnchors(roots: [pki.root]) }
        let verified = try await RegistrationVerifier(policy: policy).verify(registration)
        #expect(verified.format == (format == "packed-self" ? "packed" : format))
        let result = try AuthenticationVerifier(policy: policy).verify(
            AssertionFactory(for: registration), record: verified.record)
        #expect(result.record.id == registration.credentialID)
    }
}
