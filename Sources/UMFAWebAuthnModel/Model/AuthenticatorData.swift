import UMFACBOR
import UMFAEncoding

/// Authenticator data (WebAuthn L3 §6.1), parsed from the exact bytes the authenticator signed.
public struct AuthenticatorData: Sendable, Hashable {
    /// The bytes as received; signatures are checked over these, never over a re-encoding.
    public let rawBytes: [UInt8]
    /// SHA-256 of the RP ID the credential is scoped to.
    public let rpIDHash: [UInt8]
    /// The flags.
    public let flags: AuthenticatorFlags
    /// The signature counter.
    public let signCount: UInt32
    /// The attested credential data, present when AT is set.
    public let attestedCredentialData: AttestedCredentialData?
    /// The authenticator extension outputs, present when ED is set.
    public let extensions: CBORMap?

    /// Parses authenticator data, checking that AT and ED agree with what follows.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        var reader = ByteReader(bytes)
        do {
            rpIDHash = try reader.read(32)
            flags = AuthenticatorFlags(rawValue: try reader.readUInt8())
            signCount = try reader.readUInt32()
        } catch {
            throw WebAuthnError(
                .malformedResponse, "authenticator data is \(bytes.count) bytes, at least 37 are needed")
        }
        if flags.contains(.attestedCredentialData) {
            attestedCredentialData = try AttestedCredentialData.parse(from: &reader)
        } else {
            attestedCredentialData = nil
        }
        if flags.contains(.extensionData) {
            let decoded: CBORValue
            do {
                decoded = try CBORDecoder().decode(reader.readRemaining())
            } catch {
                throw WebAuthnError(.malformedResponse, "authenticator extensions: \(error)")
            }
            guard let map = decoded.mapValue else {
                throw WebAuthnError(.malformedResponse, "authenticator extensions are not a CBOR map")
            }
            extensions = map
        } else {
            extensions = nil
        }
        guard reader.isAtEnd else {
            throw WebAuthnError(
                .malformedResponse, "\(reader.remaining) unexpected bytes at the end of authenticator data")
        }
        rawBytes = bytes
    }

    /// Builds authenticator data from its parts, as an authenticator does.
    public init(
        rpIDHash: [UInt8], flags: AuthenticatorFlags, signCount: UInt32,
        attestedCredentialData: AttestedCredentialData? = nil, extensions: CBORMap? = nil
    ) {
        var flags = flags
        var bytes = rpIDHash
        if attestedCredentialData != nil { flags.insert(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) }
        bytes.append(flags.rawValue)
        bytes += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if let attestedCredentialData { bytes += attestedCredentialData.encoded }
        if let extensions { bytes += CBOREncoder.encode(.map(extensions)) }
        self.rawBytes = bytes
        self.rpIDHash = rpIDHash
        self.flags = flags
        self.signCount = signCount
        self.attestedCredentialData = attestedCredentialData
        self.extensions = extensions
    }
}

/// Attested credential data (WebAuthn L3 §6.5.2): the new credential's id and public key.
public struct AttestedCredentialData: Sendable, Hashable {
    /// The authenticator model's AAGUID (16 bytes).
    public let aaguid: [UInt8]
    /// The credential id.
    public let credentialID: [UInt8]
    /// The credential public key, as the exact COSE bytes received.
    public let publicKeyBytes: [UInt8]
    /// The credential public key, parsed.
    public let publicKey: COSEKey

    /// Creates attested credential data from a parsed key.
    public init(aaguid: [UInt8], credentialID: [UInt8], publicKey: COSEKey) {
        self.aaguid = aaguid
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.publicKeyBytes = publicKey.encoded
    }

    /// The AAGUID as a UUID string.
    public var aaguidString: String { AAGUID.string(aaguid) }

    package var encoded: [UInt8] {
        aaguid + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xff)] + credentialID
            + publicKeyBytes
    }

    package static func parse(from reader: inout ByteReader) throws(WebAuthnError) -> AttestedCredentialData {
        let aaguid: [UInt8]
        let credentialID: [UInt8]
        do {
            aaguid = try reader.read(16)
            let length = Int(try reader.readUInt16())
            credentialID = try reader.read(length)
        } catch {
            throw WebAuthnError(.malformedResponse, "attested credential data is truncated")
        }
        let rest = Array(reader.bytes[reader.offset...])
        let keyValue: CBORValue
        let consumed: Int
        do {
            (keyValue, consumed) = try CBORDecoder().decodePrefix(rest)
        } catch {
            throw WebAuthnError(.malformedResponse, "credential public key: \(error)")
        }
        let keyBytes = Array(rest[..<consumed])
        let key = try COSEKey(cbor: keyValue)
        do { try reader.skip(consumed) } catch {
            throw WebAuthnError(.malformedResponse, "credential public key is truncated")
        }
        return AttestedCredentialData(aaguid: aaguid, credentialID: credentialID, key: key, keyBytes: keyBytes)
    }

    private init(aaguid: [UInt8], credentialID: [UInt8], key: COSEKey, keyBytes: [UInt8]) {
        self.aaguid = aaguid
        self.credentialID = credentialID
        self.publicKey = key
        self.publicKeyBytes = keyBytes
    }
}

/// Formatting of authenticator AAGUIDs.
public enum AAGUID {
    /// Formats 16 bytes as a lowercase UUID string; other lengths as hex.
    public static func string(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return Hex.encode(bytes) }
        // 8-4-4-4-12 hex digits, written byte by byte (a registration looks it up several times).
        var output: [UInt8] = []
        output.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { output.append(UInt8(ascii: "-")) }
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
