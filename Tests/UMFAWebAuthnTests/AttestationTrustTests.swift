import Foundation
import Testing
import UMFAWebAuthn
import X509

/// §7.1 steps 23–24: trust anchors and the attestation policy.
@Suite("Attestation trust (§7.1 steps 23–24)")
struct AttestationTrustTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    func trustedOnly(roots: [Certificate] = [], byFormat: [String: [Certificate]] = [:]) -> RelyingPartyPolicy {
        Fixture.policy {
            $0.attestation = .trustedOnly
            $0.trustAnchors = AttestationTrustAnchors(roots: roots, rootsByFormat: byFormat)
        }
    }

    @Test("step 24: trustedOnly refuses a packed chain when no anchor is configured")
    func untrustedRefused() async throws {
        let factory = RegistrationFactory.es256(.packed(try pki.signer()))
        let error = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: trustedOnly(), factory)
        #expect(error?.message.contains("untrusted") == true)
    }

    @Test("step 24: trustedOnly refuses none and self attestation")
    func noneAndSelfRefused() async {
        await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: trustedOnly(), RegistrationFactory.es256(.none))
        await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: trustedOnly(), RegistrationFactory.es256(.packedSelf))
    }

    @Test("step 24: a chain to a configured root is trusted, for packed and fido-u2f")
    func trustedChain() async throws {
        let verifier = RegistrationVerifier(policy: trustedOnly(roots: [pki.root]))
        let packed = try await verifier.verify(RegistrationFactory.es256(.packed(try pki.signer())))
        guard case .trusted(let anchor) = packed.attestation.trust else {
            Issue.record("packed chain not trusted: \(packed.attestation.trust)")
            return
        }
        #expect(anchor.contains("UMFA Test Attestation Root"))
        let u2f = try await verifier.verify(RegistrationFactory.es256(.fidoU2F(try pki.signer())))
        #expect(u2f.attestation.trust.label == "trusted")
    }

    @Test("step 23: roots given for one format only vouch for that format")
    func rootsByFormat() async throws {
        let verifier = RegistrationVerifier(policy: trustedOnly(byFormat: ["fido-u2f": [pki.root]]))
        let u2f = try await verifier.verify(RegistrationFactory.es256(.fidoU2F(try pki.signer())))
        #expect(u2f.attestation.trust.label == "trusted")
        await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: trustedOnly(byFormat: ["fido-u2f": [pki.root]]),
            RegistrationFactory.es256(.packed(try pki.signer())))
    }

    @Test("step 24: a chain to another root is untrusted")
    func otherRoot() async throws {
        let other = try TestPKI(commonName: "Some Other Root")
        await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: trustedOnly(roots: [other.root]),
            RegistrationFactory.es256(.packed(try pki.signer())))
    }

    @Test("step 24: a leaf that has expired at the verification time is untrusted")
    func expiredLeaf() async throws {
        var options = TestPKI.LeafOptions()
        options.notValidAfter = Fixture.now.addingTimeInterval(-86_400)
        let factory = RegistrationFactory.es256(.packed(try pki.signer(options)))
        await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: trustedOnly(roots: [pki.root]), factory)

        let lenient = Fixture.policy { $0.trustAnchors = AttestationTrustAnchors(roots: [pki.root]) }
        let result = try await RegistrationVerifier(policy: lenient).verify(factory)
        #expect(result.attestation.trust.label == "untrusted")
    }

    @Test("the default policy accepts every verified outcome and says which it was")
    func defaultPolicyReports() async throws {
        let verifier = RegistrationVerifier(policy: Fixture.policy())
        let packed = try await verifier.verify(RegistrationFactory.es256(.packed(try pki.signer())))
        guard case .untrusted(let reason) = packed.attestation.trust else {
            Issue.record("expected untrusted, got \(packed.attestation.trust)")
            return
        }
        #expect(reason.contains("no trust anchor"))
    }
}
