import Crypto
import Foundation
import SwiftASN1
import UMFACBOR
import UMFAWebAuthn
import UMFAWebAuthnTypes
import X509

/// Builds a genuine `tpm` statement (pubArea, certInfo, AIK certificate, signature), with one
/// knob for each §8.3 requirement a test breaks.
struct TPMStatement {
    var pki: TestPKI
    var version: CBORValue = "2.0"
    var magic: UInt32 = 0xff54_4347
    var type: UInt16 = 0x8017
    var nameAlg: UInt16 = 0x000B
    /// Replaces the extraData the TPM certified.
    var extraData: [UInt8]?
    /// Replaces the Name in certInfo.
    var name: [UInt8]?
    /// Puts another key into pubArea than the credential's.
    var otherKeyInPubArea = false
    var trailingPubAreaByte = false
    var signWithOtherKey = false
    // AIK certificate knobs.
    var subject = DistinguishedName()
    var manufacturer = "id:FFFFF1D0"
    var includeSubjectAlternativeName = true
    var includeAIKUsage = true
    var isCertificateAuthority = false
    var aaguid: [UInt8]? = Fixture.aaguid
    var omitX5C = false

    init(pki: TestPKI) { self.pki = pki }

    var attestation: RegistrationFactory.Attestation { .custom(format: "tpm", build) }

    func build(_ input: RegistrationFactory.StatementInput) throws -> CBORMap {
        let pubArea = try self.pubArea(for: otherKeyInPubArea ? .p256(P256.Signing.PrivateKey()) : input.credentialKey)
        let nameDigest: [UInt8] =
            nameAlg == 0x0004 ? Array(Insecure.SHA1.hash(data: pubArea)) : Array(SHA256.hash(data: pubArea))
        let certifiedName = name ?? ([UInt8(nameAlg >> 8), UInt8(nameAlg & 0xff)] + nameDigest)
        var certInfo: [UInt8] = Self.uint32(magic) + Self.uint16(type)
        certInfo += Self.sized([0x00, 0x0b] + Array(repeating: 0x11, count: 32))  // qualifiedSigner
        certInfo += Self.sized(extraData ?? Array(SHA256.hash(data: input.signedData)))
        certInfo += Array(repeating: 0, count: 17) + Array(repeating: 0, count: 8)  // clockInfo, firmwareVersion
        certInfo += Self.sized(certifiedName) + Self.sized([0x00, 0x0b] + Array(repeating: 0x22, count: 32))
        let aikKey = P256.Signing.PrivateKey()
        let signer = signWithOtherKey ? P256.Signing.PrivateKey() : aikKey
        var statement = CBORMap([
            "ver": version, "alg": CBORValue(Int64(COSEAlgorithm.es256.rawValue)),
            "sig": .byteString(Array(try signer.signature(for: certInfo).derRepresentation)),
            "certInfo": .byteString(certInfo), "pubArea": .byteString(pubArea + (trailingPubAreaByte ? [0] : [])),
        ])
        if !omitX5C {
            let aik = try aikCertificate(.init(aikKey.publicKey))
            statement["x5c"] = .array([.byteString(try AttestationSigner.der(aik))])
        }
        return statement
    }

    func aikCertificate(_ key: Certificate.PublicKey) throws -> Certificate {
        var extensions: [Certificate.Extension] = [
            try Certificate.Extension(
                isCertificateAuthority
                    ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : .notCertificateAuthority,
                critical: true)
        ]
        if includeSubjectAlternativeName {
            let directory = DistinguishedName([
                RelativeDistinguishedName([
                    .init(type: [2, 23, 133, 2, 1], utf8String: manufacturer),
                    .init(type: [2, 23, 133, 2, 2], utf8String: "UMFA test TPM"),
                    .init(type: [2, 23, 133, 2, 3], utf8String: "id:00020008"),
                ])
            ])
            extensions.append(
                try Certificate.Extension(SubjectAlternativeNames([.directoryName(directory)]), critical: true))
        }
        let usage: ASN1ObjectIdentifier = includeAIKUsage ? [2, 23, 133, 8, 3] : [1, 3, 6, 1, 5, 5, 7, 3, 2]
        extensions.append(try Certificate.Extension(try ExtendedKeyUsage([.init(oid: usage)]), critical: false))
        if let aaguid {
            extensions.append(
                Certificate.Extension(
                    oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: false, value: ArraySlice([0x04, 16] + aaguid)))
        }
        return try pki.certificate(for: key, subject: subject, extensions: extensions)
    }

    /// A TPMT_PUBLIC for the key: ECC P-256 or RSA.
    func pubArea(for key: TestKey) throws -> [UInt8] {
        let map = try key.coseMap
        var area: [UInt8]
        switch key {
        case .rsa:
            let modulus = map[-1]?.bytesValue ?? []
            area = Self.uint16(0x0001) + Self.uint16(nameAlg) + Self.uint32(0x0005_0072) + Self.sized([])
            area += Self.uint16(0x0010) + Self.uint16(0x0010) + Self.uint16(2048) + Self.uint32(0)
            area += Self.sized(modulus)
        default:
            area = Self.uint16(0x0023) + Self.uint16(nameAlg) + Self.uint32(0x0005_0072) + Self.sized([])
            area += Self.uint16(0x0010) + Self.uint16(0x0018) + Self.uint16(0x000B) + Self.uint16(0x0003)
            area += Self.uint16(0x0010)
            area += Self.sized(map[-2]?.bytesValue ?? []) + Self.sized(map[-3]?.bytesValue ?? [])
        }
        return area
    }

    static func uint16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
    static func uint32(_ value: UInt32) -> [UInt8] { uint16(UInt16(value >> 16)) + uint16(UInt16(value & 0xffff)) }
    static func sized(_ bytes: [UInt8]) -> [UInt8] { uint16(UInt16(bytes.count)) + bytes }
}
