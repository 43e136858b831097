import Foundation
@_spi(FixedExpiryValidationTime) import X509

/// FIDO Metadata Service (MDS3) entries indexed by AAGUID, loaded from a metadata BLOB (the
/// library never fetches one; `umfa serve` downloads it with `UMFA_METADATA_URL` and puts each
/// newer index in a ``LiveMetadata``).
///
/// ```swift
/// let blob = try String(contentsOfFile: "blob.jwt", encoding: .utf8)
/// let index = try await MetadataIndex(blob: blob, root: WellKnownRoots.fidoMetadataRoot, at: Date())
/// index.entry(for: aaguid)?.description  // "YubiKey 5 Series with NFC"
/// ```
public struct MetadataIndex: Sendable {
    /// The entries by lower-case AAGUID string.
    public let entries: [String: MetadataEntry]
    /// The BLOB's serial number (`no`).
    public let serialNumber: Int
    /// The BLOB's `nextUpdate` date.
    public let nextUpdate: String

    /// Creates an index from entries, as tests and embedders with their own source do.
    public init(entries: [MetadataEntry], serialNumber: Int = 0, nextUpdate: String = "") {
        self.entries = Dictionary(entries.map { ($0.aaguid, $0) }, uniquingKeysWith: { first, _ in first })
        self.serialNumber = serialNumber
        self.nextUpdate = nextUpdate
    }

    /// The longest base64url JWS header read, in bytes: an `x5c` of ``AttestationTrustAnchors/chainLimit``
    /// certificates fits many times over.
    static let headerLimit = 64 * 1024

    /// Verifies a metadata BLOB (a JWS in compact form) and indexes its entries.
    ///
    /// The JWS signature must verify with the leaf of its `x5c` chain (RS256/ES256 and the
    /// other JWS RSA/ECDSA algorithms), and that chain must end at `root`, valid at `time`.
    /// Entries without an AAGUID (UAF and U2F models) are skipped.
    /// At most a header of 64 KiB and a chain of six certificates are read: both come before the
    /// signature can be checked.
    /// - Throws: `WebAuthnError` with code `invalidMetadata`.
    public init(blob: String, root: Certificate, at time: Date) async throws(WebAuthnError) {
        func refuse(_ reason: String) -> WebAuthnError { WebAuthnError(.invalidMetadata, "metadata BLOB: \(reason)") }
        let jws: CompactJWS
        let chain: [Certificate]
        // The header is read before the signature can be checked: a bounded one, with a chain no
        // longer than an attestation's (``AttestationTrustAnchors/chainLimit``).
        guard
            (blob.utf8.firstIndex(of: UInt8(ascii: ".")).map { blob.utf8.distance(from: blob.utf8.startIndex, to: $0) }
                ?? 0)
                <= Self.headerLimit
        else { throw refuse("the JWS header is longer than \(Self.headerLimit) bytes") }
        do {
            jws = try CompactJWS(blob)
            chain = try jws.certificates()
        } catch {
            throw refuse(error.reason)
        }
        guard chain.count <= AttestationTrustAnchors.chainLimit else {
            throw refuse(
                "the x5c chain has \(chain.count) certificates; at most \(AttestationTrustAnchors.chainLimit) are followed"
            )
        }
        guard jws.isSigned(by: chain[0]) else { throw refuse("the JWS signature does not verify") }
        var verifier = Verifier(rootCertificates: CertificateStore([root])) {
            RFC5280Policy(fixedExpiryValidationTime: time)
        }
        let validation = await verifier.validate(leaf: chain[0], intermediates: CertificateStore(chain.dropFirst()))
        guard case .validCertificate = validation else {
            throw refuse("the signing certificate does not chain to the FIDO metadata root at \(time)")
        }
        let payload: MetadataBLOBPayload
        do {
            payload = try JSONDecoder().decode(MetadataBLOBPayload.self, from: Data(jws.payload))
        } catch {
            throw refuse("the payload is not an MDS3 metadata BLOB payload")
        }
        var entries: [MetadataEntry] = []
        for entry in payload.entries {
            guard let aaguid = entry.aaguid else { continue }
            let roots = (entry.metadataStatement?.attestationRootCertificates ?? []).compactMap { text in
                Data(base64Encoded: text).flatMap { try? Certificate(derEncoded: [UInt8]($0)) }
            }
            entries.append(
                MetadataEntry(
                    aaguid: aaguid, description: entry.metadataStatement?.description, attestationRoots: roots,
                    statusReports: (entry.statusReports ?? []).map {
                        MetadataEntry.StatusReport(status: $0.status, effectiveDate: $0.effectiveDate)
                    }))
        }
        self.init(entries: entries, serialNumber: payload.no, nextUpdate: payload.nextUpdate)
    }

    /// `nextUpdate` as a date (midnight UTC), when it parses: after it, fetch a newer BLOB.
    public var nextUpdateDate: Date? { MetadataEntry.date(nextUpdate) }

    /// The entry for the model `aaguid`, if the BLOB lists it.
    public func entry(for aaguid: [UInt8]) -> MetadataEntry? {
        entries[AAGUID.string(aaguid)]
    }

    /// The first of `aaguids` whose entry reports a status that refuses the model at `time`,
    /// with that report. Registration passes both the AAGUID that counts and the one claimed,
    /// so claiming a revoked model is refused as well as proving one.
    public func refusingReport(
        for aaguids: [[UInt8]], at time: Date
    ) -> (aaguid: [UInt8], report: MetadataEntry.StatusReport)? {
        for aaguid in aaguids {
            if let report = entry(for: aaguid)?.refusingReport(at: time) { return (aaguid, report) }
        }
        return nil
    }
}
