import Crypto
import Foundation
import SwiftASN1
import X509

/// A test attestation CA and the leaf certificates it issues, with knobs for every §8.2.1
/// requirement a leaf may break.
struct TestPKI {
    let rootKey: P256.Signing.PrivateKey
    let root: Certificate

    static let notValidBefore = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01
    static let notValidAfter = Date(timeIntervalSince1970: 2_019_686_400)  // 2034-01-01

    /// A fresh self-signed root CA.
    init(commonName: String = "UMFA Test Attestation Root") throws {
        rootKey = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CountryName("US")
            OrganizationName("UMFA Tests")
            OrganizationalUnitName("Authenticator Attestation CA")
            CommonName(commonName)
        }
        root = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(rootKey.publicKey),
            notValidBefore: Self.notValidBefore, notValidAfter: Self.notValidAfter, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true)
            },
            issuerPrivateKey: .init(rootKey))
    }

    /// What a leaf certificate says; the defaults meet §8.2.1.
    struct LeafOptions {
        var country = "US"
        var organization: String? = "UMFA Tests"
        var organizationalUnit = "Authenticator Attestation"
        var commonName: String? = "UMFA Test Authenticator"
        var version = Certificate.Version.v3
        var isCertificateAuthority = false
        /// The id-fido-gen-ce-aaguid extension's value, or `nil` for no extension.
        var aaguid: [UInt8]? = Fixture.aaguid
        var aaguidCritical = false
        var notValidBefore = TestPKI.notValidBefore
        var notValidAfter = TestPKI.notValidAfter
    }

    /// A leaf certificate for `publicKey`, issued by the root.
    func leaf(for publicKey: Certificate.PublicKey, _ options: LeafOptions = LeafOptions()) throws -> Certificate {
        let country = try RelativeDistinguishedName.Attribute(
            type: .RDNAttributeType.countryName, printableString: options.country)
        var attributes = [country]
        if let organization = options.organization {
            attributes.append(.init(type: .RDNAttributeType.organizationName, utf8String: organization))
        }
        attributes.append(
            .init(type: .RDNAttributeType.organizationalUnitName, utf8String: options.organizationalUnit))
        if let commonName = options.commonName {
            attributes.append(.init(type: .RDNAttributeType.commonName, utf8String: commonName))
        }
        let subject = DistinguishedName(attributes.map { RelativeDistinguishedName($0) })
        var extensions: [Certificate.Extension] = [
            try Certificate.Extension(
                options.isCertificateAuthority
                    ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : .notCertificateAuthority,
                critical: true)
        ]
        if let aaguid = options.aaguid {
            extensions.append(
                Certificate.Extension(
                    oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: options.aaguidCritical,
                    value: ArraySlice([0x04, UInt8(aaguid.count)] + aaguid)))
        }
        if options.version != .v3 { extensions = [] }  // v1 certificates carry no extensions
        return try Certificate(
            version: options.version, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: options.notValidBefore, notValidAfter: options.notValidAfter, issuer: root.subject,
            subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: try Certificate.Extensions(extensions),
            issuerPrivateKey: .init(rootKey))
    }

    /// An attestation signer: a P-256 key and its leaf certificate, followed by the root.
    func signer(_ options: LeafOptions = LeafOptions()) throws -> AttestationSigner {
        let key = P256.Signing.PrivateKey()
        let leaf = try leaf(for: .init(key.publicKey), options)
        return AttestationSigner(key: .p256(key), certificates: [leaf])
    }
}

/// The key that signs an attestation statement and the certificates `x5c` carries, leaf first.
struct AttestationSigner {
    var key: TestKey
    var certificates: [Certificate]

    /// The `x5c` array: each certificate's DER.
    var x5c: [[UInt8]] {
        get throws { try certificates.map { try Self.der($0) } }
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

extension TestPKI {
    /// A certificate for `publicKey` with any subject and extensions, issued by the root.
    func certificate(
        for publicKey: Certificate.PublicKey, subject: DistinguishedName, extensions: [Certificate.Extension],
        notValidBefore: Date = TestPKI.notValidBefore, notValidAfter: Date = TestPKI.notValidAfter
    ) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: notValidBefore, notValidAfter: notValidAfter, issuer: root.subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: try Certificate.Extensions(extensions),
            issuerPrivateKey: .init(rootKey))
    }
}

extension TestKey {
    /// The public key as a certificate key.
    var certificatePublicKey: Certificate.PublicKey {
        get throws {
            switch self {
            case .p256(let key): return .init(key.publicKey)
            case .p384(let key): return .init(key.publicKey)
            case .p521(let key): return .init(key.publicKey)
            case .ed25519(let key): return .init(key.publicKey)
            case .rsa(let key, _): return .init(key.publicKey)
            }
        }
    }
}
