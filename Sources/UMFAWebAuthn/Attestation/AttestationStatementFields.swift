import SwiftASN1
import UMFACBOR
import UMFAWebAuthnTypes
import X509

/// Reading of the fields that several attestation statement formats share.
enum AttestationStatementFields {
    static let step = "7.1 step 22"

    static func algorithm(_ statement: CBORMap, format: String) throws(WebAuthnError) -> COSEAlgorithm {
        guard let value = statement["alg"]?.int64Value, let alg = Int(exactly: value) else {
            throw WebAuthnError(.invalidAttestation, "\(format) statement lacks an integer alg", step: step)
        }
        return COSEAlgorithm(rawValue: alg)
    }

    static func signature(_ statement: CBORMap, format: String) throws(WebAuthnError) -> [UInt8] {
        guard let sig = statement["sig"]?.bytesValue else {
            throw WebAuthnError(.invalidAttestation, "\(format) statement lacks a byte-string sig", step: step)
        }
        return sig
    }

    /// The `x5c` certificates, leaf first, or `nil` when the statement has none.
    static func certificates(_ statement: CBORMap, format: String) throws(WebAuthnError) -> [Certificate]? {
        guard let value = statement["x5c"] else { return nil }
        guard let items = value.arrayValue, !items.isEmpty else {
            throw WebAuthnError(.invalidAttestation, "\(format) x5c must be a non-empty array", step: step)
        }
        var certificates: [Certificate] = []
        for (index, item) in items.enumerated() {
            guard let der = item.bytesValue else {
                throw WebAuthnError(.invalidAttestation, "\(format) x5c[\(index)] is not a byte string", step: step)
            }
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch {
                throw WebAuthnError(
                    .invalidAttestation, "\(format) x5c[\(index)] is not an X.509 certificate", step: step)
            }
        }
        return certificates
    }

    /// The AAGUID in the id-fido-gen-ce-aaguid extension (1.3.6.1.4.1.45724.1.1.4), if present.
    static func certificateAAGUID(_ certificate: Certificate) throws(WebAuthnError) -> (
        aaguid: [UInt8], critical: Bool
    )? {
        guard let ext = certificate.extensions[oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]] else { return nil }
        do {
            let octets = try ASN1OctetString(derEncoded: ext.value)
            return (Array(octets.bytes), ext.critical)
        } catch {
            throw WebAuthnError(
                .invalidAttestation, "the certificate's AAGUID extension is not an OCTET STRING", step: step)
        }
    }

    /// The values of one subject attribute type.
    static func subjectValues(_ certificate: Certificate, _ type: ASN1ObjectIdentifier) -> [String] {
        certificate.subject.flatMap { rdn in rdn.filter { $0.type == type }.map { String(describing: $0.value) } }
    }
}
