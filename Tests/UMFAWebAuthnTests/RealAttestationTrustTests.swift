import Crypto
import Foundation
import Testing
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes
import X509

/// Real attestations from py_webauthn's tests against UMFA's shipped roots: each chains to the
/// root its maker publishes, at the time it was made, and to nothing once that time is past.
@Suite("Real attestations against the shipped roots")
struct RealAttestationTrustTests {
    /// The vectors and the shipped root each must chain to.
    static let anchors: [String: WellKnownRoot] = [
        "test_verify_attestation_android_key_hardware_authority": .googleHardwareAttestationRoot1,
        "test_verify_attestation_android_key_root_5": .googleKeyAttestationCA1,
        "test_verify_attestation_android_safetynet": .globalSignRootCA,
        "test_verify_attestation_apple_passkey": .appleWebAuthnRoot,
        "test_verify_attestation_from_yubikey_firefox[fido-u2f]": .yubicoU2FRoot,
        "test_verify_attestation_from_yubikey_firefox[packed]": .yubicoU2FRoot,
        "test_verify_attestation_with_okp_public_key": .yubicoU2FRoot,
        "test_verify_attestation_surface_pro_4": .microsoftTPMRoot2014,
        "test_verify_attestation_dell_xps_13": .microsoftTPMRoot2014,
        "test_verify_attestation_lenovo_carbon_x1": .microsoftTPMRoot2014,
        "test_verify_tpm_with_ecc_public_area_type": .microsoftTPMRoot2014,
    ]

    /// Verifies the vector `name` against the shipped roots; `trustedOnly` asks for a trusted
    /// chain (not a proven AAGUID, which most of these need metadata for).
    func verify(_ name: String, trustedOnly: Bool, at override: Date? = nil) async throws -> VerifiedRegistration {
        try await verify(name, at: override) { policy in
            if trustedOnly {
                policy.attestation = .trustedOnly
                policy.attestation.requireProvenAAGUID = false
            }
        }
    }

    func verify(
        _ name: String, at override: Date? = nil, _ adjust: (inout RelyingPartyPolicy) -> Void
    ) async throws -> VerifiedRegistration {
        let vector = try #require(try PyRegistrationFile.load().vectors.first { $0.name == name })
        var policy = try vector.policy
        policy.trustAnchors = .wellKnown()
        adjust(&policy)
        let response = try vector.response.decoded(as: RegistrationResponseJSON.self)
        let time = try override ?? VectorTime.parse(vector.verificationTime) ?? Fixture.now
        return try await RegistrationVerifier(policy: policy).verify(
            response, expectedChallenge: try #require(Base64URL.decode(vector.challenge)), at: time)
    }

    @Test("step 24: trusted, ending at the maker's shipped root", arguments: anchors.keys.sorted())
    func trusted(name: String) async throws {
        let result = try await verify(name, trustedOnly: true)
        guard case .trusted(let anchor) = result.attestation.trust else {
            Issue.record("\(name): \(result.attestation.trust)")
            return
        }
        let root = try #require(Self.anchors[name])
        #expect(anchor == String(describing: try root.certificate.subject))
    }

    /// How each vector proves its AAGUID against the shipped roots alone, without metadata: these
    /// Windows AIK certificates state no AAGUID, so Windows Hello needs its metadata entry.
    static let proofs: [String: AAGUIDProof] = [
        "test_verify_attestation_android_key_hardware_authority": .unproven(reason: ""),
        "test_verify_attestation_android_key_root_5": .unproven(reason: ""),
        "test_verify_attestation_android_safetynet": .unproven(reason: ""),
        "test_verify_attestation_apple_passkey": .unproven(reason: ""),
        "test_verify_attestation_from_yubikey_firefox[fido-u2f]": .format,
        "test_verify_attestation_from_yubikey_firefox[packed]": .certificateExtension,
        "test_verify_attestation_with_okp_public_key": .certificateExtension,
        "test_verify_attestation_surface_pro_4": .unproven(reason: ""),
        "test_verify_attestation_dell_xps_13": .unproven(reason: ""),
        "test_verify_attestation_lenovo_carbon_x1": .unproven(reason: ""),
        "test_verify_tpm_with_ecc_public_area_type": .unproven(reason: ""),
    ]

    @Test(
        "without metadata only a certificate extension or fido-u2f's zero proves the AAGUID; trustedOnly needs it",
        arguments: proofs.keys.sorted())
    func aaguidProof(name: String) async throws {
        let expected = try #require(Self.proofs[name])
        let result = try await verify(name, trustedOnly: false)
        #expect(result.attestation.aaguidProof.label == expected.label, "\(name): \(result.attestation.aaguidProof)")
        if expected.isProven {
            let trusted = try await verify(name) { $0.attestation = .trustedOnly }
            #expect(trusted.attestation.provenAAGUID == result.record.aaguid)
        } else {
            await expectWebAuthnError(.untrustedAttestation, step: "7.1 step 24") {
                _ = try await verify(name) { $0.attestation = .trustedOnly }
            }
        }
    }

    @Test("a real YubiKey proves its AAGUID by the root its metadata entry names, and not by another")
    func yubiKeyWithMetadata() async throws {
        let name = "test_verify_attestation_from_yubikey_firefox[packed]"
        let aaguid = "6d44ba9b-f6ec-2e49-b930-0c8fe920cb73"
        func metadata(_ root: WellKnownRoot) throws -> MetadataIndex {
            MetadataIndex(entries: [
                MetadataEntry(
                    aaguid: aaguid, description: "Security Key by Yubico", attestationRoots: [try root.certificate],
                    statusReports: [.init(status: "FIDO_CERTIFIED", effectiveDate: "2020-01-01")])
            ])
        }
        func policy(_ root: WellKnownRoot) throws -> (inout RelyingPartyPolicy) -> Void {
            let index = try metadata(root)
            return { policy in
                policy.trustAnchors = .wellKnown(metadata: index)
                policy.attestation = .trustedOnly
                policy.attestation.aaguidAllow = [aaguid]
            }
        }
        let result = try await verify(name, try policy(.yubicoU2FRoot))
        #expect(result.attestation.aaguidProof == .modelRoots)
        #expect(result.attestation.provenAAGUID.map(AAGUID.string) == aaguid)
        #expect(result.attestation.authenticatorName == "Security Key by Yubico")

        // Metadata that names another maker's root for this AAGUID: the Yubico chain, trusted for
        // packed, no longer proves it, and the extension alone does not override the metadata.
        let error = await expectWebAuthnError(.untrustedAttestation, step: "7.1 step 24") {
            _ = try await verify(name, try policy(.appleWebAuthnRoot))
        }
        #expect(error?.message.contains("names for model \(aaguid)") == true, "\(String(describing: error))")
    }

    @Test("step 24: the same TPM response is untrusted ten years after its AIK certificate expired")
    func expiredLater() async throws {
        let later = Date(timeIntervalSince1970: 2_000_000_000)  // 2033-05-18
        let result = try await verify("test_verify_attestation_dell_xps_13", trustedOnly: false, at: later)
        #expect(result.attestation.trust.label == "untrusted")
        await expectWebAuthnError(.untrustedAttestation, step: "7.1 step 24") {
            _ = try await verify("test_verify_attestation_dell_xps_13", trustedOnly: true, at: later)
        }
    }

    @Test("step 23: the FIDO conformance U2F root is not shipped, so that response is untrusted")
    func conformanceUntrusted() async throws {
        let result = try await verify("test_verify_attestation_from_fido_conformance", trustedOnly: false)
        #expect(result.attestation.trust.label == "untrusted")
    }

    @Test("every shipped root parses, is a CA, and matches its documented fingerprint and expiry")
    func shippedRoots() throws {
        for root in WellKnownRoot.attestationRoots + [WellKnownRoot.fidoMetadataRoot] {
            let certificate = try root.certificate
            #expect(
                Hex.encode(try AttestationSigner.der(certificate).sha256).uppercased() == root.sha256, "\(root.name)")
            let formatter = ISO8601DateFormatter()
            #expect(formatter.string(from: certificate.notValidAfter) == root.notAfter, "\(root.name)")
            #expect(certificate.subject == certificate.issuer, "\(root.name) is not self-issued")
        }
        #expect(
            Set(WellKnownRoot.attestationRoots.flatMap(\.formats)) == [
                "android-key", "apple", "apple-appattest", "packed", "fido-u2f", "tpm", "android-safetynet",
            ])
    }
}

extension Array where Element == UInt8 {
    /// SHA-256 of the bytes.
    var sha256: [UInt8] {
        Array(Crypto.SHA256.hash(data: self))
    }
}
