import Foundation
import Testing

@testable import UMFAWebAuthn

/// ``LiveMetadata``: a BLOB replaced while relying parties hold copies of their trust anchors
/// takes effect at their next verification, and one verification reads one BLOB.
@Suite("FIDO metadata replaced while in use")
struct LiveMetadataTests {
    static let revoked = MetadataIndex(
        entries: [
            MetadataEntry(
                aaguid: AAGUID.string(MetadataTests.revokedAAGUID), description: "Leaky Key", attestationRoots: [],
                statusReports: [.init(status: "REVOKED", effectiveDate: nil)])
        ], serialNumber: 2)

    @Test("a copy of the anchors sees the index put in the live holder after it was made")
    func copiesSeeReplacement() async throws {
        let live = LiveMetadata(MetadataIndex(entries: [], serialNumber: 1))
        var anchors = AttestationTrustAnchors()
        anchors.liveMetadata = live
        let policy = Fixture.policy { $0.trustAnchors = anchors }
        var factory = RegistrationFactory.es256(.none)
        factory.aaguid = MetadataTests.revokedAAGUID
        _ = try await RegistrationVerifier(policy: policy).verify(factory)

        live.replace(with: Self.revoked)
        #expect(policy.trustAnchors.currentMetadata?.serialNumber == 2)
        let error = await expectRegistrationFailure(.authenticatorRevoked, step: "7.1 step 23", policy: policy, factory)
        #expect(error?.message.contains("REVOKED") == true)
    }

    @Test("pinned anchors keep the index in force when pinned, and the live holder wins over a fixed index")
    func pinned() {
        let live = LiveMetadata(MetadataIndex(entries: [], serialNumber: 1))
        var anchors = AttestationTrustAnchors(metadata: MetadataIndex(entries: [], serialNumber: 9))
        #expect(anchors.currentMetadata?.serialNumber == 9)
        anchors.liveMetadata = live
        #expect(anchors.currentMetadata?.serialNumber == 1)
        let pinned = anchors.pinned()
        live.replace(with: Self.revoked)
        #expect(pinned.currentMetadata?.serialNumber == 1 && pinned.liveMetadata == nil)
        #expect(anchors.currentMetadata?.serialNumber == 2)
    }

    @Test("replace(ifNewer:) takes only a greater serial number, and of many racing the greatest stays")
    func replaceIfNewer() async {
        let live = LiveMetadata()
        #expect(live.replace(ifNewer: MetadataIndex(entries: [], serialNumber: 5)) == nil)
        #expect(live.replace(ifNewer: MetadataIndex(entries: [], serialNumber: 4))?.serialNumber == 5)
        #expect(live.replace(ifNewer: MetadataIndex(entries: [], serialNumber: 5))?.serialNumber == 5)
        #expect(live.current?.serialNumber == 5)
        await withTaskGroup(of: Void.self) { group in
            for serial in (1...200).shuffled() {
                group.addTask { _ = live.replace(ifNewer: MetadataIndex(entries: [], serialNumber: serial)) }
            }
        }
        #expect(live.current?.serialNumber == 200)
    }
}
