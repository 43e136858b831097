import Crypto
import Testing
import UMFACBOR
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// §8.4: the `android-key` format, each requirement broken once on a genuine statement.
@Suite("android-key attestation (§8.4)")
struct AndroidKeyAttestationTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    func factory(_ adjust: (inout AndroidKeyStatement) -> Void = { _ in }) -> RegistrationFactory {
        var statement = AndroidKeyStatement(pki: pki)
        adjust(&statement)
        return RegistrationFactory.es256(statement.attestation)
    }

    func refused(
        _ reason: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ adjust: (inout AndroidKeyStatement) -> Void
    ) async {
        let error = await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22", sourceLocation: sourceLocation, factory(adjust))
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test("a genuine statement verifies as Basic, trusted by the issuing root")
    func genuine() async throws {
        let policy = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(rootsByFormat: ["android-key": [pki.root]])
            $0.attestation = .selfOrTrusted
        }
        let result = try await RegistrationVerifier(policy: policy).verify(factory())
        #expect(result.format == "android-key" && result.attestation.type == .basic)
        #expect(result.attestation.trust.label == "trusted")
        #expect(!result.attestation.aaguidProven)
    }

    @Test("the format's root proves a genuine device, not its AAGUID: trustedOnly needs the model's roots")
    func aaguidNeedsModelRoots() async throws {
        let formatOnly = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(rootsByFormat: ["android-key": [pki.root]])
            $0.attestation = .trustedOnly
        }
        let error = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: formatOnly, factory())
        #expect(error?.message.contains("does not prove authenticator model") == true)
        let metadata = MetadataIndex(entries: [
            MetadataEntry(
                aaguid: AAGUID.string(Fixture.aaguid), description: "Android", attestationRoots: [pki.root],
                statusReports: [])
        ])
        let named = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(metadata: metadata)
            $0.attestation = .trustedOnly
        }
        let result = try await RegistrationVerifier(policy: named).verify(factory())
        #expect(result.attestation.aaguidProof == .modelRoots)
    }

    @Test("step 2: sig must verify with the certificate key")
    func signature() async {
        var factory = factory()
        factory.editStatement = AttestationFormatTests.flipSignature
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }
    @Test("step 3: the certificate must hold the credential key")
    func certifiedKey() async { await refused("not the credential public key") { $0.certifyOtherKey = true } }
    @Test("step 4: the key description extension is required")
    func missingExtension() async { await refused("no key description") { $0.includeExtension = false } }
    @Test("step 4: a malformed key description is refused")
    func malformedExtension() async { await refused("key description") { $0.malformedExtension = true } }
    @Test("step 4: attestationChallenge must be clientDataHash")
    func challenge() async { await refused("attestationChallenge") { $0.challenge = Array(repeating: 1, count: 32) } }
    @Test("step 5: allApplications may appear in neither list", arguments: [true, false])
    func allApplications(software: Bool) async {
        await refused("allApplications") { $0.allApplicationsIn = software ? .software : .hardware }
    }
    @Test("step 5: origin must be KM_ORIGIN_GENERATED")
    func origin() async { await refused("KM_ORIGIN_GENERATED") { $0.origin = 2 } }
    @Test("step 5: purpose must be exactly KM_PURPOSE_SIGN")
    func purpose() async {
        await refused("KM_PURPOSE_SIGN") { $0.purposes = [3] }
        await refused("KM_PURPOSE_SIGN") { $0.purposes = [2, 3] }
    }
    @Test("step 5: purpose and origin count only when hardware-enforced, unless software is accepted")
    func softwareEnforced() async throws {
        await refused("KM_ORIGIN_GENERATED") { $0.side = .software }
        var formats = AttestationFormatRegistry.standard
        formats.register(AndroidKeyAttestation(acceptSoftwareEnforced: true))
        let lenient = Fixture.policy { $0.attestationFormats = formats }
        let result = try await RegistrationVerifier(policy: lenient).verify(factory { $0.side = .software })
        #expect(result.attestation.type == .basic)
    }
}

extension AndroidKeyAttestationTests {
    @Test("step 5: with requireAuthorizations off, absent fields pass but wrong ones are still refused")
    func lenientAuthorizations() async throws {
        var formats = AttestationFormatRegistry.standard
        formats.register(AndroidKeyAttestation(requireAuthorizations: false))
        let lenient = Fixture.policy { $0.attestationFormats = formats }
        var empty = AndroidKeyStatement(pki: pki)
        empty.side = .software
        empty.purposes = []
        _ = try await RegistrationVerifier(policy: lenient).verify(RegistrationFactory.es256(empty.attestation))
        await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22", policy: lenient, factory { $0.origin = 1 })
    }
}

extension AndroidKeyAttestationTests {
    @Test("step 2: RS1 (SHA-1) is refused outside the tpm format")
    func noRS1() async {
        var factory = factory()
        factory.editStatement = { $0["alg"] = CBORValue(Int64(COSEAlgorithm.rs1.rawValue)) }
        let error = await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
        #expect(error?.message.contains("RS1") == true)
    }
}
