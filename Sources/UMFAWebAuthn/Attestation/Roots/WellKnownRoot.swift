import Foundation
import X509

/// A public attestation root UMFA ships as data, with the formats it vouches for and the
/// facts an operator needs to check it (docs/attestation-roots.md lists them all).
public struct WellKnownRoot: Sendable, Hashable {
    /// The certificate's common name.
    public let name: String
    /// The attestation formats this root vouches for; empty for the FIDO metadata root.
    public let formats: [String]
    /// The end of the certificate's validity (RFC 3339).
    public let notAfter: String
    /// The SHA-256 fingerprint of the DER, upper-case hex.
    public let sha256: String
    /// The certificate in PEM form.
    public let pem: String

    /// The parsed certificate.
    public var certificate: Certificate {
        get throws { try Certificate(pemEncoded: pem) }
    }

    /// Every attestation root UMFA ships.
    public static let attestationRoots: [WellKnownRoot] = [
        googleHardwareAttestationRoot1, googleHardwareAttestationRoot2, googleHardwareAttestationRoot3,
        googleHardwareAttestationRoot4, googleKeyAttestationCA1, appleWebAuthnRoot, appleAppAttestationRoot,
        yubicoU2FRoot,
        microsoftTPMRoot2014, globalSignRootCA,
    ]

    /// The root FIDO Metadata Service BLOBs chain to.
    public static let fidoMetadataRoot = globalSignRootR3
}

extension AttestationTrustAnchors {
    /// Anchors holding UMFA's shipped public roots, each only for the formats it vouches for
    /// (Google for `android-key`, Apple for `apple`, Microsoft for `tpm`, Yubico for `packed`
    /// and `fido-u2f`, GlobalSign R1 for `android-safetynet`), plus `extra` roots for any format.
    public static func wellKnown(extra: [Certificate] = [], metadata: MetadataIndex? = nil) -> AttestationTrustAnchors {
        var byFormat: [String: [Certificate]] = [:]
        for root in WellKnownRoot.attestationRoots {
            guard let certificate = try? root.certificate else { continue }
            for format in root.formats { byFormat[format, default: []].append(certificate) }
        }
        return AttestationTrustAnchors(roots: extra, rootsByFormat: byFormat, metadata: metadata)
    }
}
