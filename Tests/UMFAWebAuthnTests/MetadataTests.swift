import Foundation
import Testing
import UMFAWebAuthn
import X509

/// FIDO Metadata Service (MDS3) BLOBs: verification, indexing, roots, names and status reports.
@Suite("FIDO metadata (MDS3)")
struct MetadataTests {
    /// The metadata root (the test's stand-in for GlobalSign R3) and the attestation CA it lists.
    let metadataPKI: TestPKI
    let attestationPKI: TestPKI
    static let revokedAAGUID: [UInt8] = Array(repeating: 0xaa, count: 16)

    init() throws {
        metadataPKI = try TestPKI(commonName: "UMFA Test Metadata Root")
        attestationPKI = try TestPKI(commonName: "UMFA Test Vendor Attestation Root")
    }

    func builder() throws -> MetadataBLOBBuilder {
        var builder = MetadataBLOBBuilder(pki: metadataPKI)
        try builder.add(
            aaguid: Fixture.aaguid, description: "UMFA Test Key 5 NFC", roots: [attestationPKI.root],
            statuses: ["FIDO_CERTIFIED_L1"])
        try builder.add(
            aaguid: Self.revokedAAGUID, description: "Leaky Key", roots: [attestationPKI.root],
            statuses: ["FIDO_CERTIFIED", "ATTESTATION_KEY_COMPROMISE"])
        return builder
    }

    func index(_ builder: MetadataBLOBBuilder) async throws -> MetadataIndex {
        try await MetadataIndex(blob: try builder.make(), root: metadataPKI.root, at: Fixture.now)
    }

    @Test("a BLOB signed with ES256 or RS256 under the root is indexed by AAGUID", arguments: ["ES256", "RS256"])
    func loads(algorithm: String) async throws {
        var builder = try builder()
        builder.algorithm = algorithm
        let index = try await index(builder)
        #expect(index.serialNumber == 42 && index.entries.count == 2)
        #expect(index.nextUpdateDate == Date(timeIntervalSince1970: 1_751_328_000))  // 2025-07-01
        let entry = try #require(index.entry(for: Fixture.aaguid))
        #expect(entry.description == "UMFA Test Key 5 NFC")
        #expect(entry.attestationRoots == [attestationPKI.root])
    }

    @Test("a BLOB that does not verify is refused", arguments: BLOBDefect.allCases)
    func refused(defect: BLOBDefect) async throws {
        var builder = try builder()
        var root = metadataPKI.root
        var blob: String?
        switch defect {
        case .signature: builder.corruptSignature = true
        case .otherRoot: root = try TestPKI(commonName: "Not the FIDO root").root
        case .expiredSigner: builder.signerNotValidAfter = Fixture.now.addingTimeInterval(-1)
        case .notJWS: blob = "not.a-jws"
        case .unknownAlgorithm: builder.algorithm = "HS256"
        }
        let text = try blob ?? builder.make()
        await expectWebAuthnError(.invalidMetadata, step: nil) {
            _ = try await MetadataIndex(blob: text, root: root, at: Fixture.now)
        }
    }

    @Test("step 23: metadata roots vouch for their AAGUID and name the authenticator")
    func rootsAndName() async throws {
        let index = try await index(try builder())
        let policy = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(metadata: index)
            $0.attestation = .trustedOnly
        }
        let result = try await RegistrationVerifier(policy: policy).verify(
            RegistrationFactory.es256(.packed(try attestationPKI.signer())))
        #expect(result.attestation.trust.label == "trusted")
        #expect(result.attestation.authenticatorName == "UMFA Test Key 5 NFC")

        // Another model's AAGUID does not inherit this entry's roots.
        var other = RegistrationFactory.es256(.packed(try attestationPKI.signer(aaguid: nil)))
        other.aaguid = Array(repeating: 0x55, count: 16)
        await expectRegistrationFailure(.untrustedAttestation, step: "7.1 step 24", policy: policy, other)
    }

    @Test("step 23: a model whose status reports a compromise is refused, whatever the policy")
    func revoked() async throws {
        let index = try await index(try builder())
        var factory = RegistrationFactory.es256(.none)
        factory.aaguid = Self.revokedAAGUID
        let error = await expectRegistrationFailure(
            .authenticatorRevoked, step: "7.1 step 23",
            policy: Fixture.policy { $0.trustAnchors = AttestationTrustAnchors(metadata: index) }, factory)
        #expect(error?.message.contains("ATTESTATION_KEY_COMPROMISE") == true)
    }

    @Test("a refusing status counts only from its effective date")
    func effectiveDate() {
        let entry = MetadataEntry(
            aaguid: "x", description: nil, attestationRoots: [],
            statusReports: [.init(status: "REVOKED", effectiveDate: "2030-01-01")])
        #expect(entry.refusingReport(at: Fixture.now) == nil)
        #expect(entry.refusingReport(at: Date(timeIntervalSince1970: 1_900_000_000))?.status == "REVOKED")
    }

    @Test("the shipped FIDO metadata root is GlobalSign Root CA - R3")
    func shippedRoot() throws {
        let root = try WellKnownRoot.fidoMetadataRoot.certificate
        #expect(String(describing: root.subject).contains("GlobalSign Root CA - R3"))
        #expect(WellKnownRoot.fidoMetadataRoot.formats.isEmpty)
    }
}

/// One way a metadata BLOB fails to verify.
enum BLOBDefect: String, CaseIterable, Sendable {
    case signature, otherRoot, expiredSigner, notJWS, unknownAlgorithm
}

extension TestPKI {
    /// A packed signer whose leaf has the given AAGUID extension (or none).
    func signer(aaguid: [UInt8]?) throws -> AttestationSigner {
        var options = LeafOptions()
        options.aaguid = aaguid
        return try signer(options)
    }
}
