import Crypto
import Foundation
import SwiftASN1
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthn
import X509

/// A test CA that issues App Attest and Android key attestations, as Apple's and Google's
/// would: for the server's tests, so every refusal can be made on purpose, and for the SDK's
/// tests against a live server that trusts it (the real Apple sample is checked in
/// UMFAWebAuthnTests).
public struct AttestationTestCA: Sendable {
    /// The root's key.
    public let key = P256.Signing.PrivateKey()
    /// The self-signed root.
    public let root: Certificate

    /// A new root, with a key of its own.
    public init() throws {
        let name = try DistinguishedName { CommonName("UMFA client attestation test root") }
        root = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_704_067_200),
            notValidAfter: Date(timeIntervalSince1970: 2_019_686_400), issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true)
            }, issuerPrivateKey: .init(key))
    }

    /// Anchors that trust this CA for both client attestation formats only.
    public var anchors: AttestationTrustAnchors {
        AttestationTrustAnchors(rootsByFormat: ["apple-appattest": [root], "android-key": [root]])
    }

    /// Anchors that trust this CA for `packed` attestation (WebAuthn L3 §8.2) only.
    public var packedAnchors: AttestationTrustAnchors {
        AttestationTrustAnchors(rootsByFormat: ["packed": [root]])
    }

    /// `attestationObject` (a software authenticator's, for `clientDataJSON`) as a hardware
    /// security key with a batch certificate from this CA would make it: the authenticator data
    /// without the backup flags (a device-bound key), and a `packed` statement with an `x5c`
    /// leaf that meets §8.2.1 (subject C, O, OU "Authenticator Attestation", CN; not a CA; the
    /// AAGUID extension).
    public func packedFull(attestationObject: [UInt8], clientDataJSON: [UInt8]) throws -> [UInt8] {
        let object = try AttestationObject(bytes: attestationObject)
        var raw = object.authenticatorData.rawBytes
        raw[32] &= ~UInt8(0x18)  // BE (bit 3) and BS (bit 4), §6.1
        let data = try AuthenticatorData(bytes: raw)
        let aaguid = data.attestedCredentialData?.aaguid ?? AAGUID.zero
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            CountryName("US")
            OrganizationName("UMFA Tests")
            OrganizationalUnitName("Authenticator Attestation")
            CommonName("UMFA test security key")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_704_067_200),
            notValidAfter: Date(timeIntervalSince1970: 2_019_686_400), issuer: root.subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions([
                try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
                Certificate.Extension(
                    oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: false,
                    value: ArraySlice([0x04, UInt8(aaguid.count)] + aaguid)),
            ]), issuerPrivateKey: .init(self.key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let signed = raw + Array(SHA256.hash(data: clientDataJSON))
        let signature = try key.signature(for: signed).derRepresentation
        let statement = CBORMap([
            "alg": CBORValue(-7), "sig": .byteString(Array(signature)),
            "x5c": .array([.byteString(serializer.serializedBytes)]),
        ])
        return AttestationObject(format: "packed", statement: statement, authenticatorData: data).encoded
    }

    /// A leaf for `publicKey` issued by the root, with one extension (`extensionOID`, `value`), DER.
    public func leaf(_ publicKey: P256.Signing.PublicKey, extensionOID: ASN1ObjectIdentifier, value: [UInt8]) throws
        -> [UInt8]
    {
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_704_067_200),
            notValidAfter: Date(timeIntervalSince1970: 2_019_686_400), issuer: root.subject,
            subject: try DistinguishedName { CommonName("attested key") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions([
                Certificate.Extension(oid: extensionOID, critical: false, value: ArraySlice(value))
            ]), issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// An App Attest attestation object for `appID` and the server's `challenge`, base64url.
    public func appAttest(appID: String, challenge: String) throws -> String {
        let key = P256.Signing.PrivateKey()
        let keyID = Array(SHA256.hash(data: Array(key.publicKey.x963Representation)))
        let data = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(appID.utf8))), flags: [], signCount: 0,
            attestedCredentialData: AttestedCredentialData(
                aaguid: Array("appattestdevelop".utf8), credentialID: keyID, publicKey: COSEKey(p256: key.publicKey)))
        let nonce = Array(SHA256.hash(data: data.rawBytes + Array(SHA256.hash(data: Array(challenge.utf8)))))
        let leaf = try leaf(
            key.publicKey, extensionOID: [1, 2, 840, 113635, 100, 8, 2],
            value: DERBuilder.sequence([DERBuilder.explicit(1, DERBuilder.octets(nonce))]))
        let statement = CBORMap(["x5c": .array([.byteString(leaf)]), "receipt": .byteString([])])
        return Base64URL.encode(
            AttestationObject(format: "apple-appattest", statement: statement, authenticatorData: data).encoded)
    }

    /// An Android key attestation chain for `packageName` signed with `digest`, base64url
    /// certificates joined by `.`.
    public func androidChain(packageName: String, digest: [UInt8], challenge: String) throws -> String {
        let applicationID = DERBuilder.sequence([
            DERBuilder.set([
                DERBuilder.sequence([DERBuilder.octets(Array(packageName.utf8)), DERBuilder.tlv(0x02, [1])])
            ]),
            DERBuilder.set([DERBuilder.octets(digest)]),
        ])
        let description = DERBuilder.sequence([
            DERBuilder.tlv(0x02, [4]), DERBuilder.tlv(0x0a, [1]), DERBuilder.tlv(0x02, [4]), DERBuilder.tlv(0x0a, [1]),
            DERBuilder.octets(Array(challenge.utf8)), DERBuilder.octets([]),
            DERBuilder.sequence([DERBuilder.explicit(709, DERBuilder.octets(applicationID))]),
            DERBuilder.sequence([DERBuilder.explicit(702, DERBuilder.tlv(0x02, [0]))]),
        ])
        let leaf = try leaf(
            P256.Signing.PrivateKey().publicKey, extensionOID: [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17], value: description)
        var serializer = DER.Serializer()
        try serializer.serialize(root)
        return [leaf, serializer.serializedBytes].map(Base64URL.encode).joined(separator: ".")
    }
}
