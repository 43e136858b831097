import Crypto
import Foundation
import SwiftASN1
import X509

/// An Android app as an application accepts it: its package and the SHA-256 digests of the
/// certificates it is signed with.
public struct AcceptedAndroidApp: Sendable, Equatable {
    /// The package name.
    public let packageName: String
    /// SHA-256 digests of accepted signing certificates.
    public let signingCertificateDigests: [[UInt8]]

    /// Creates an entry.
    public init(packageName: String, signingCertificateDigests: [[UInt8]]) {
        self.packageName = packageName
        self.signingCertificateDigests = signingCertificateDigests
    }
}

/// What an Android key attestation chain proved about the app that holds the key.
public struct AndroidAppAttestationResult: Sendable, Equatable {
    /// The accepted package the key belongs to.
    public let packageName: String
    /// The attested public key, as its certificate carries it (DER `SubjectPublicKeyInfo`).
    public let publicKey: [UInt8]
    /// `attestationSecurityLevel`: 1 TEE, 2 StrongBox.
    public let securityLevel: Int
}

/// Verifies an Android Keystore key attestation chain (leaf first) as client attestation: the
/// chain to a Google attestation root, the challenge, a key made in secure hardware, and the
/// `attestationApplicationId` naming an accepted package signed with an accepted certificate.
///
/// See https://developer.android.com/privacy-and-security/security-key-attestation.
public struct AndroidAppAttestationVerifier: Sendable {
    /// The roots a chain may end at (Google's hardware attestation roots in production; they are
    /// the `android-key` roots of ``AttestationTrustAnchors/wellKnown(extra:metadata:)``).
    public let anchors: AttestationTrustAnchors

    /// Creates a verifier.
    public init(anchors: AttestationTrustAnchors) { self.anchors = anchors }

    static func refuse(_ reason: String) -> WebAuthnError {
        WebAuthnError(.invalidAttestation, "android key attestation: \(reason)")
    }

    /// Checks the DER certificates `chain` (leaf first) for `challenge` and one of `apps`, at `time`.
    public func verify(chain: [[UInt8]], challenge: [UInt8], apps: [AcceptedAndroidApp], at time: Date)
        async throws(WebAuthnError) -> AndroidAppAttestationResult
    {
        guard (1...10).contains(chain.count) else { throw Self.refuse("send 1 to 10 certificates, leaf first") }
        var certificates: [Certificate] = []
        for der in chain {
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch {
                throw Self.refuse("a chain entry is not an X.509 certificate")
            }
        }
        let leaf = certificates[0]
        // The chain ends at a Google attestation root.
        let trust = await anchors.chainTrust(certificates, format: "android-key", at: time)
        guard case .trusted = trust else {
            if case .untrusted(let reason) = trust { throw Self.refuse(reason) }
            throw Self.refuse("the certificate chain is not trusted")
        }
        guard let ext = leaf.extensions[oid: AndroidKeyDescription.oid] else {
            throw Self.refuse("the leaf has no key description extension (1.3.6.1.4.1.11129.2.1.17)")
        }
        let description = try AndroidKeyDescription(extensionValue: ext.value)
        // The challenge is the server's.
        guard description.attestationChallenge == challenge else {
            throw Self.refuse("the attestation challenge is not the one issued")
        }
        // The key lives in secure hardware, which generated it.
        guard description.attestationSecurityLevel >= 1 else {
            throw Self.refuse("the key is attested by software, not by a TEE or StrongBox")
        }
        guard description.hardwareEnforced.origin == AndroidKeyDescription.originGenerated else {
            throw Self.refuse("the key was not generated in secure hardware")
        }
        // The key belongs to an accepted package signed with an accepted certificate.
        guard
            let encoded = description.softwareEnforced.attestationApplicationID
                ?? description.hardwareEnforced.attestationApplicationID
        else { throw Self.refuse("the key description names no application (attestationApplicationId)") }
        let (packages, digests) = try Self.applicationID(encoded)
        guard
            let app = apps.first(where: { accepted in
                packages.contains(accepted.packageName)
                    && digests.contains(where: { accepted.signingCertificateDigests.contains($0) })
            })
        else { throw Self.refuse("the app (package and signing certificate) is not one this application accepts") }
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(leaf.publicKey)
        } catch {
            throw Self.refuse("the leaf's public key cannot be encoded")
        }
        return AndroidAppAttestationResult(
            packageName: app.packageName, publicKey: serializer.serializedBytes,
            securityLevel: description.attestationSecurityLevel)
    }

    /// `AttestationApplicationId ::= SEQUENCE { package_infos SET OF AttestationPackageInfo,
    /// signature_digests SET OF OCTET_STRING }`, `AttestationPackageInfo ::= SEQUENCE {
    /// package_name OCTET_STRING, version INTEGER }`.
    static func applicationID(_ bytes: [UInt8]) throws(WebAuthnError) -> (packages: [String], digests: [[UInt8]]) {
        do {
            let root = try DER.parse(bytes)
            guard root.identifier == .sequence, case .constructed(let parts) = root.content else {
                throw refuse("attestationApplicationId is not a SEQUENCE")
            }
            let fields = Array(parts)
            guard fields.count == 2, case .constructed(let infos) = fields[0].content,
                case .constructed(let signatures) = fields[1].content
            else { throw refuse("attestationApplicationId is not two SETs") }
            var packages: [String] = []
            for info in infos {
                guard case .constructed(let members) = info.content, let name = Array(members).first else {
                    throw refuse("a package info is not a SEQUENCE")
                }
                packages.append(String(decoding: try ASN1OctetString(derEncoded: name).bytes, as: UTF8.self))
            }
            let digests = try signatures.map { Array(try ASN1OctetString(derEncoded: $0).bytes) }
            return (packages, digests)
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw refuse("attestationApplicationId is malformed")
        }
    }
}
