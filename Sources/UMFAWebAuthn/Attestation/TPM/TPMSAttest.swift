import UMFACBOR

/// The `certInfo` of a `tpm` attestation statement: a TPMS_ATTEST structure
/// (TPM 2.0 Library, Part 2, §10.12.12) whose `attested` member is a TPMS_CERTIFY_INFO.
struct TPMSAttest: Sendable {
    /// TPM_GENERATED_VALUE.
    static let generatedValue: UInt32 = 0xff54_4347
    /// TPM_ST_ATTEST_CERTIFY.
    static let attestCertify: UInt16 = 0x8017

    /// `magic`.
    let magic: UInt32
    /// `type`.
    let type: UInt16
    /// `extraData`: the hash of the data the relying party asked the TPM to certify.
    let extraData: [UInt8]
    /// `attested.name`: the Name of the certified object.
    let name: [UInt8]

    /// Parses `bytes`; the whole input must be one TPMS_ATTEST.
    init(_ bytes: [UInt8]) throws(WebAuthnError) {
        var reader = ByteReader(bytes)
        do {
            magic = try reader.readUInt32()
            type = try reader.readUInt16()
            _ = try TPMPublicArea.sized(&reader)  // qualifiedSigner
            extraData = try TPMPublicArea.sized(&reader)
            try reader.skip(17)  // clockInfo: clock, resetCount, restartCount, safe
            try reader.skip(8)  // firmwareVersion
            name = try TPMPublicArea.sized(&reader)
            _ = try TPMPublicArea.sized(&reader)  // qualifiedName
        } catch {
            throw TPMAttestation.refuse("certInfo is truncated")
        }
        guard reader.isAtEnd else { throw TPMAttestation.refuse("certInfo has trailing bytes") }
    }
}
