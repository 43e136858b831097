import Testing
import UMFAWebAuthn

/// §7.1 steps 23–24: roots per AAGUID, AAGUID allow and deny lists, the named policies.
@Suite("Attestation policy: AAGUID roots and lists")
struct AttestationPolicyTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    @Test("step 23: roots given for one AAGUID vouch for that model only")
    func rootsByAAGUID() async throws {
        let anchors = AttestationTrustAnchors(rootsByAAGUID: [AAGUID.string(Fixture.aaguid): [pki.root]])
        let policy = Fixture.policy {
            $0.trustAnchors = anchors
            $0.attestation = .trustedOnly
        }
        let result = try await RegistrationVerifier(policy: policy).verify(
            RegistrationFactory.es256(.packed(try pki.signer())))
        #expect(result.attestation.trust.label == "trusted")
        var other = RegistrationFactory.es256(.packed(try pki.signer(aaguid: nil)))
        other.aaguid = Array(repeating: 0x77, count: 16)
        await expectRegistrationFailure(.untrustedAttestation, step: "7.1 step 24", policy: policy, other)
    }

    @Test("step 24: a denied AAGUID is refused, others pass")
    func denyList() async throws {
        let policy = Fixture.policy {
            $0.attestation = AttestationPolicy(aaguidDeny: [AAGUID.string(Fixture.aaguid).uppercased()])
        }
        let error = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: policy, RegistrationFactory.es256(.packedSelf))
        #expect(error?.message.contains("deny list") == true)
        var other = RegistrationFactory.es256(.packedSelf)
        other.aaguid = Array(repeating: 0x77, count: 16)
        _ = try await RegistrationVerifier(policy: policy).verify(other)
    }

    @Test("step 24: with an allow list only listed AAGUIDs the attestation proves register")
    func allowList() async throws {
        let policy = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(roots: [pki.root])
            $0.attestation = AttestationPolicy(aaguidAllow: [AAGUID.string(Fixture.aaguid)])
        }
        let listed = try await RegistrationVerifier(policy: policy).verify(
            RegistrationFactory.es256(.packed(try pki.signer())))
        #expect(listed.attestation.provenAAGUID == Fixture.aaguid)
        let other: [UInt8] = Array(repeating: 0x77, count: 16)
        var unlisted = RegistrationFactory.es256(.packed(try pki.signer(aaguid: other)))
        unlisted.aaguid = other
        let error = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: policy, unlisted)
        #expect(error?.message.contains("is not on the allow list") == true)
        // Self attestation only claims its AAGUID, so it matches no allow list even when listed.
        let claimed = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: policy, RegistrationFactory.es256(.packedSelf))
        #expect(claimed?.message.contains("cannot match the allow list") == true)
    }

    @Test("step 24: selfOrTrusted accepts self attestation and refuses none and untrusted chains")
    func selfOrTrusted() async throws {
        let policy = Fixture.policy { $0.attestation = .selfOrTrusted }
        _ = try await RegistrationVerifier(policy: policy).verify(RegistrationFactory.es256(.packedSelf))
        await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: policy, RegistrationFactory.es256(.none))
        await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: policy,
            RegistrationFactory.es256(.packed(try pki.signer())))
    }

    @Test("the well-known anchors give each shipped root only its own formats")
    func wellKnownScoping() throws {
        let anchors = AttestationTrustAnchors.wellKnown()
        #expect(anchors.roots.isEmpty)
        #expect(anchors.roots(for: "android-key").count == 5)
        #expect(anchors.roots(for: "tpm").count == 1 && anchors.roots(for: "apple").count == 1)
        #expect(anchors.roots(for: "packed").count == 1 && anchors.roots(for: "none").isEmpty)
    }
}
