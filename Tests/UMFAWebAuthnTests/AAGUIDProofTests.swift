import Foundation
import Testing
import UMFAWebAuthn
import X509

/// docs/contract.md §4: an AAGUID counts only when the attestation proves it (a certificate extension,
/// or a chain to the roots the metadata entry for that AAGUID names); `fido-u2f` has the zero
/// AAGUID; under `trusted` an unproven AAGUID is refused, and no allow list matches one.
@Suite("AAGUID proof (§7.1 steps 23–24)")
struct AAGUIDProofTests {
    /// A vendor CA trusted for `packed` (as UMFA ships Yubico's), and another vendor's CA.
    let vendor: TestPKI
    let otherVendor: TestPKI
    static let claimed: [UInt8] = Array(repeating: 0x5a, count: 16)
    static let revoked: [UInt8] = Array(repeating: 0xdd, count: 16)

    init() throws {
        vendor = try TestPKI(commonName: "UMFA Test Vendor Root")
        otherVendor = try TestPKI(commonName: "UMFA Test Other Vendor Root")
    }

    static func entry(_ aaguid: [UInt8], roots: [Certificate], status: String = "FIDO_CERTIFIED_L1") -> MetadataEntry {
        MetadataEntry(
            aaguid: AAGUID.string(aaguid), description: "model \(aaguid[0])", attestationRoots: roots,
            statusReports: [.init(status: status, effectiveDate: "2024-01-01")])
    }

    /// `trusted` (or `attestation`) with `aaguidAllow`, the vendor root trusted for every
    /// format listed, and `metadata`.
    func policy(
        _ attestation: AttestationPolicy = .trustedOnly, allow: [[UInt8]]? = nil, deny: [[UInt8]] = [],
        formats: [String] = ["packed"], roots: [Certificate] = [], metadata: [MetadataEntry] = []
    ) -> RelyingPartyPolicy {
        Fixture.policy {
            var acceptance = attestation
            acceptance.aaguidAllow = allow.map { Set($0.map(AAGUID.string)) }
            acceptance.aaguidDeny = Set(deny.map(AAGUID.string))
            $0.attestation = acceptance
            $0.trustAnchors = AttestationTrustAnchors(
                roots: roots, rootsByFormat: Dictionary(uniqueKeysWithValues: formats.map { ($0, [vendor.root]) }),
                metadata: metadata.isEmpty ? nil : MetadataIndex(entries: metadata))
        }
    }

    /// A packed registration claiming `aaguid`, signed by a leaf of `pki` whose extension
    /// states `extensionAAGUID` (none when `nil`).
    func packed(claiming aaguid: [UInt8], by pki: TestPKI, extensionAAGUID: [UInt8]?) throws -> RegistrationFactory {
        var factory = RegistrationFactory.es256(.packed(try pki.signer(aaguid: extensionAAGUID)))
        factory.aaguid = aaguid
        return factory
    }

    @Test("packed without the extension: a root trusted for the format does not prove the claimed AAGUID")
    func formatRootProvesNoModel() async throws {
        let factory = try packed(claiming: Self.claimed, by: vendor, extensionAAGUID: nil)
        let metadata = [Self.entry(Self.claimed, roots: [otherVendor.root])]
        let error = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24",
            policy: policy(allow: [Self.claimed], metadata: metadata), factory)
        #expect(error?.message.contains("does not prove authenticator model") == true, "\(String(describing: error))")

        // Without a policy that needs proof, the chain is trusted but the AAGUID is only a claim,
        // which no allow list matches.
        let lenient = try await RegistrationVerifier(policy: policy(AttestationPolicy(), metadata: metadata))
            .verify(factory)
        #expect(lenient.attestation.trust.label == "trusted")
        #expect(!lenient.attestation.aaguidProven && lenient.attestation.provenAAGUID == nil)
        let allowError = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24",
            policy: policy(AttestationPolicy(), allow: [Self.claimed], metadata: metadata), factory)
        #expect(allowError?.message.contains("cannot match the allow list") == true)
    }

    @Test("packed with the extension: metadata that names other roots for that AAGUID wins over the format root")
    func metadataRootsBindTheModel() async throws {
        let factory = try packed(claiming: Self.claimed, by: vendor, extensionAAGUID: Self.claimed)
        let error = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24",
            policy: policy(allow: [Self.claimed], metadata: [Self.entry(Self.claimed, roots: [otherVendor.root])]),
            factory)
        #expect(error?.message.contains("names for model") == true, "\(String(describing: error))")

        let named = try await RegistrationVerifier(
            policy: policy(
                allow: [Self.claimed], formats: [], metadata: [Self.entry(Self.claimed, roots: [vendor.root])])
        ).verify(factory)
        #expect(named.attestation.aaguidProof == .modelRoots)
        #expect(named.attestation.provenAAGUID == Self.claimed)
        #expect(named.attestation.authenticatorName == "model 90")
    }

    @Test("packed with a matching extension under a trusted chain proves its AAGUID and passes the allow list")
    func extensionProves() async throws {
        let factory = try packed(claiming: Self.claimed, by: vendor, extensionAAGUID: Self.claimed)
        let result = try await RegistrationVerifier(policy: policy(allow: [Self.claimed])).verify(factory)
        #expect(result.attestation.trust.label == "trusted")
        #expect(result.attestation.aaguidProof == .certificateExtension)
        #expect(result.attestation.provenAAGUID == Self.claimed && result.record.aaguid == Self.claimed)

        // The same leaf under an untrusted chain proves nothing: anyone can mint the extension.
        let untrusted = try await RegistrationVerifier(policy: policy(AttestationPolicy()))
            .verify(try packed(claiming: Self.claimed, by: otherVendor, extensionAAGUID: Self.claimed))
        #expect(untrusted.attestation.trust.label == "untrusted" && !untrusted.attestation.aaguidProven)
    }

    @Test("fido-u2f counts the zero AAGUID: a claimed non-zero one matches no allow list")
    func fidoU2FIsZero() async throws {
        var factory = RegistrationFactory.es256(.fidoU2F(try vendor.signer(aaguid: Self.claimed)))
        factory.aaguid = Self.claimed
        let error = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24",
            policy: policy(allow: [Self.claimed], formats: ["fido-u2f"]), factory)
        #expect(
            error?.message.contains("\(AAGUID.string(AAGUID.zero)) is not on the allow list") == true,
            "\(String(describing: error))")

        let result = try await RegistrationVerifier(policy: policy(allow: [AAGUID.zero], formats: ["fido-u2f"]))
            .verify(factory)
        #expect(result.attestation.aaguidProof == .format)
        #expect(result.attestation.aaguid == AAGUID.zero && result.record.aaguid == AAGUID.zero)

        // A deny list still matches the claim: claiming a denied model is refused.
        let denied = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24",
            policy: policy(AttestationPolicy(), deny: [Self.claimed], formats: ["fido-u2f"]), factory)
        #expect(denied?.message.contains("deny list") == true)
    }

    @Test("a revoked model's device cannot claim another, allowed AAGUID to dodge revocation")
    func revokedCannotSwap() async throws {
        // The revoked model's root is also trusted for packed, as a vendor root shipped per format.
        let metadata = [
            Self.entry(Self.revoked, roots: [vendor.root], status: "REVOKED"),
            Self.entry(Self.claimed, roots: [otherVendor.root]),
        ]
        let swapped = try packed(claiming: Self.claimed, by: vendor, extensionAAGUID: nil)
        let error = await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24", policy: policy(allow: [Self.claimed], metadata: metadata),
            swapped)
        #expect(error?.message.contains("does not prove") == true, "\(String(describing: error))")
        // Nor under a policy without proof, where no allow list matches an unproven AAGUID.
        await expectRegistrationFailure(
            .untrustedAttestation, step: "7.1 step 24",
            policy: policy(.selfOrTrusted, allow: [Self.claimed], metadata: metadata), swapped)

        // A leaf that states its real model cannot claim another at all.
        await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22", policy: policy(metadata: metadata),
            try packed(claiming: Self.claimed, by: vendor, extensionAAGUID: Self.revoked))
        // And claiming the revoked model itself is refused, proven or not.
        let revoked = await expectRegistrationFailure(
            .authenticatorRevoked, step: "7.1 step 23", policy: policy(AttestationPolicy(), metadata: metadata),
            try packed(claiming: Self.revoked, by: otherVendor, extensionAAGUID: nil))
        #expect(revoked?.message.contains("REVOKED") == true)
    }

    @Test("none and self attestation prove no AAGUID: no allow list matches, a deny list does")
    func noneAndSelf() async throws {
        for attestation in [RegistrationFactory.Attestation.none, .packedSelf] {
            var factory = RegistrationFactory.es256(attestation)
            factory.aaguid = Self.claimed
            let result = try await RegistrationVerifier(policy: policy(AttestationPolicy())).verify(factory)
            #expect(!result.attestation.aaguidProven && result.record.aaguid == Self.claimed)
            await expectRegistrationFailure(
                .untrustedAttestation, step: "7.1 step 24", policy: policy(AttestationPolicy(), allow: [Self.claimed]),
                factory)
            await expectRegistrationFailure(
                .untrustedAttestation, step: "7.1 step 24", policy: policy(AttestationPolicy(), deny: [Self.claimed]),
                factory)
        }
    }
}
