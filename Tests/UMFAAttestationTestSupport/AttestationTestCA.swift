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
            value: DER.sequence([DER.explicit(1, DER.octets(nonce))]))
        let statement = CBORMap(["x5c": .array([.byteString(leaf)]), "receipt": .byteString([])])
        return Base64URL.encode(
            AttestationObject(format: "apple-appattest", statement: statement, authenticatorData: data).encoded)
    }

    /// An Android key attestation chain for `packageName` signed with `digest`, base64url
    /// certificates joined by `.`.
    public func androidChain(packageName: String, digest: [UInt8], challenge: String) throws -> String {
        let applicationID = DER.sequence([
            DER.set([DER.sequence([DER.octets(Array(packageName.utf8)), DER.tlv(0x02, [1])])]),
            DER.set([DER.octets(digest)]),
        ])
        let description = DER.sequence([
            DER.tlv(0x02, [4]), DER.tlv(0x0a, [1]), DER.tlv(0x02, [4]), DER.tlv(0x0a, [1]),
            DER.octets(Array(challenge.utf8)), DER.octets([]),
            DER.sequence([DER.explicit(709, DER.octets(applicationID))]),
            DER.sequence([DER.explicit(702, DER.tlv(0x02, [0]))]),
        ])
        let leaf = try leaf(
            P256.Signing.PrivateKey().publicKey, extensionOID: [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17], value: description)
        var serializer = DER.Serializer()
        try serializer.serialize(root)
        return [leaf, serializer.serializedBytes].map(Base64URL.encode).joined(separator: ".")
    }
}

extension DER {
    /// Minimal DER writing for the extensions above.
    static func tlv(_ identifier: UInt8, _ content: [UInt8]) -> [UInt8] {
        [identifier] + length(content.count) + content
    }
    static func sequence(_ items: [[UInt8]]) -> [UInt8] { tlv(0x30, items.flatMap { $0 }) }
    static func set(_ items: [[UInt8]]) -> [UInt8] { tlv(0x31, items.flatMap { $0 }) }
    static func octets(_ bytes: [UInt8]) -> [UInt8] { tlv(0x04, bytes) }

    /// `[tag] EXPLICIT`, with the high-tag-number form for tags above 30.
    static func explicit(_ tag: UInt, _ content: [UInt8]) -> [UInt8] {
        guard tag > 30 else { return tlv(0xA0 | UInt8(tag), content) }
        var digits: [UInt8] = [UInt8(tag & 0x7F)]
        var rest = tag >> 7
        while rest > 0 {
            digits.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return [0xBF] + digits + length(content.count) + content
    }

    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        if count < 0x100 { return [0x81, UInt8(count)] }
        return [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
    }
}
