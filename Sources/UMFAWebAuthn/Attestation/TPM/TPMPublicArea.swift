import UMFACBOR

/// The `pubArea` of a `tpm` attestation statement: a TPMT_PUBLIC structure
/// (TPM 2.0 Library, Part 2, §12.2.4), parsed with a bounds-checked reader.
struct TPMPublicArea: Sendable, Equatable {
    /// TPM_ALG_ID values used by WebAuthn (TPM 2.0 Part 2, §6.3).
    enum Algorithm {
        static let rsa: UInt16 = 0x0001
        static let sha1: UInt16 = 0x0004
        static let sha256: UInt16 = 0x000B
        static let sha384: UInt16 = 0x000C
        static let sha512: UInt16 = 0x000D
        static let null: UInt16 = 0x0010
        static let ecc: UInt16 = 0x0023
    }

    /// The key in the public area.
    enum Key: Sendable, Equatable {
        /// An RSA key: modulus and public exponent (0 in the structure means 65537).
        case rsa(modulus: [UInt8], exponent: UInt32)
        /// An ECC key: TPM_ECC_CURVE and the point's coordinates.
        case ecc(curve: UInt16, x: [UInt8], y: [UInt8])
    }

    /// `type`: TPM_ALG_RSA or TPM_ALG_ECC.
    let type: UInt16
    /// `nameAlg`: the hash that computes the object's Name.
    let nameAlg: UInt16
    /// `objectAttributes`.
    let objectAttributes: UInt32
    /// `parameters` and `unique`, read as one key.
    let key: Key
    /// The bytes as received, which the Name is computed over.
    let bytes: [UInt8]

    /// Parses `bytes`; the whole input must be one TPMT_PUBLIC.
    init(_ bytes: [UInt8]) throws(WebAuthnError) {
        self.bytes = bytes
        var reader = ByteReader(bytes)
        do {
            type = try reader.readUInt16()
            nameAlg = try reader.readUInt16()
            objectAttributes = try reader.readUInt32()
            _ = try Self.sized(&reader)  // authPolicy
            try Self.skipSymmetric(&reader)
            try Self.skipScheme(&reader)  // scheme (TPMT_RSA_SCHEME or TPMT_ECC_SCHEME)
            switch type {
            case Algorithm.rsa:
                _ = try reader.readUInt16()  // keyBits
                let exponent = try reader.readUInt32()
                key = .rsa(modulus: try Self.sized(&reader), exponent: exponent)
            case Algorithm.ecc:
                let curve = try reader.readUInt16()
                try Self.skipScheme(&reader)  // kdf
                key = .ecc(curve: curve, x: try Self.sized(&reader), y: try Self.sized(&reader))
            default:
                throw TPMAttestation.refuse("pubArea type \(type) is neither RSA nor ECC")
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw TPMAttestation.refuse("pubArea is truncated")
        }
        guard reader.isAtEnd else { throw TPMAttestation.refuse("pubArea has trailing bytes") }
    }

    /// A TPM2B: a 16-bit size and that many bytes.
    static func sized(_ reader: inout ByteReader) throws(ByteReader.OutOfBounds) -> [UInt8] {
        try reader.read(Int(try reader.readUInt16()))
    }

    /// TPMT_SYM_DEF_OBJECT: an algorithm, then key bits and mode unless it is TPM_ALG_NULL.
    private static func skipSymmetric(_ reader: inout ByteReader) throws(ByteReader.OutOfBounds) {
        if try reader.readUInt16() != Algorithm.null { try reader.skip(4) }
    }

    /// A scheme: an algorithm, then its hash algorithm unless it is TPM_ALG_NULL.
    private static func skipScheme(_ reader: inout ByteReader) throws(ByteReader.OutOfBounds) {
        if try reader.readUInt16() != Algorithm.null { try reader.skip(2) }
    }
}
