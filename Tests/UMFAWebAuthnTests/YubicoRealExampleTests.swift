import Foundation
import Testing
import UMFAEncoding
import UMFAWebAuthn

/// Real registration + assertion pairs from Yubico's java-webauthn-server test suite: YubiKeys
/// of every generation, Security Keys, iOS and macOS, Windows Hello and ThinkPad TPMs.
@Suite("Yubico RealExamples pairs")
struct YubicoRealExampleTests {
    static let userHandle: [UInt8] = Array("yubico-example".utf8)

    /// The shipped root each attested example must chain to.
    static func expectedRoot(_ vector: YubicoExampleFile.Vector) -> WellKnownRoot? {
        switch vector.fmt {
        case "apple": return .appleWebAuthnRoot
        case "tpm": return .microsoftTPMRoot2014
        case "packed", "fido-u2f": return .yubicoU2FRoot
        default: return nil
        }
    }

    @Test("registers with the shipped roots, then authenticates", arguments: try YubicoExampleFile.names())
    func pair(name: String) async throws {
        let vector = try #require(try YubicoExampleFile.load().vectors.first { $0.name == name })
        let policy = RelyingPartyPolicy(
            rpID: vector.rpID, origins: OriginPolicy(allowed: [vector.origin]), trustAnchors: .wellKnown())
        let challenge = try #require(Base64URL.decode(vector.registration.challenge))
        let time = try VectorTime.parse(vector.verificationTime) ?? Fixture.now
        let verifier = RegistrationVerifier(policy: policy)
        guard vector.expected.valid else {
            let error = await expectWebAuthnError(.unsupportedAlgorithm, step: vector.expected.step) {
                _ = try await verifier.verify(
                    try vector.registrationResponse(), expectedChallenge: challenge, at: time)
            }
            #expect(error?.code.rawValue == vector.expected.error)
            return
        }
        let registered = try await verifier.verify(
            try vector.registrationResponse(), expectedChallenge: challenge, userHandle: Self.userHandle, at: time)
        #expect(registered.format == vector.fmt)
        if let root = Self.expectedRoot(vector) {
            #expect(registered.attestation.trust == .trusted(anchor: String(describing: try root.certificate.subject)))
        } else {
            #expect(registered.attestation.trust == AttestationTrust.none)
        }

        guard let authentication = vector.authentication else { return }
        let assertionChallenge = try #require(Base64URL.decode(authentication.challenge))
        let authenticated = try AuthenticationVerifier(policy: policy).verify(
            vector.authenticationResponse(authentication), expectedChallenge: assertionChallenge,
            credential: registered.record, allowCredentials: [registered.record.id],
            identifiedUserHandle: Self.userHandle)
        #expect(authenticated.record.signCount >= registered.record.signCount)

        var forged = authentication.signature.bytes
        forged[forged.count / 2] ^= 0x01
        var tampered = vector.authenticationResponse(authentication)
        tampered.response.signature = Base64URLBytes(forged)
        await expectWebAuthnError(.invalidSignature, step: "7.2 step 21") {
            _ = try AuthenticationVerifier(policy: policy).verify(
                tampered, expectedChallenge: assertionChallenge, credential: registered.record,
                identifiedUserHandle: Self.userHandle)
        }
    }

    @Test("the file holds every device family")
    func coverage() throws {
        let vectors = try YubicoExampleFile.load().vectors
        #expect(Set(vectors.map(\.fmt)) == ["fido-u2f", "packed", "apple", "tpm", "none"])
        #expect(vectors.count == 25)
        #expect(vectors.filter { $0.authentication != nil }.count == 23)
    }
}
