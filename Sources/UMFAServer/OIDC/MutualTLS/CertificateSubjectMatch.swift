import Foundation
import UMFAStorage
import X509

/// Whether a certificate carries the subject a `tls_client_auth` client registered (RFC 8705
/// §2.1.2): its subject DN, or a subject alternative name of the registered kind.
enum CertificateSubjectMatch {
    /// Whether `certificate` has `subject`.
    static func matches(_ certificate: Certificate, _ subject: TLSClientAuthSubject) -> Bool {
        switch subject {
        case .subjectDN(let registered):
            // RFC 8705 §2.1.2: the RFC 4514 string representation; both sides are parsed and
            // compared attribute by attribute (``DistinguishedNameText``), not as raw text.
            guard let expected = DistinguishedNameText.normalized(registered) else { return false }
            return DistinguishedNameText.normalized(String(describing: certificate.subject)) == expected
        case .sanDNS(let name):
            // DNS names compare without regard to case (RFC 5280 §7.2).
            return alternativeNames(certificate).contains {
                if case .dnsName(let value) = $0 { return value.lowercased() == name.lowercased() }
                return false
            }
        case .sanURI(let uri):
            return alternativeNames(certificate).contains {
                if case .uniformResourceIdentifier(let value) = $0 { return value == uri }
                return false
            }
        case .sanIP(let text):
            // RFC 8705 §2.1.2 (RFC 5952 §8): compared in binary.
            guard let expected = IPAddressRange.bytes(of: text) else { return false }
            return alternativeNames(certificate).contains {
                if case .ipAddress(let octets) = $0 {
                    return IPAddressRange.unmapped(Array(octets.bytes)) == expected
                }
                return false
            }
        case .sanEmail(let email):
            // RFC 5280 §7.5: the local part exactly, the host without regard to case.
            return alternativeNames(certificate).contains {
                if case .rfc822Name(let value) = $0 { return Self.sameMailbox(value, email) }
                return false
            }
        }
    }

    /// The certificate's subject alternative names; none when it has no such extension.
    private static func alternativeNames(_ certificate: Certificate) -> [GeneralName] {
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return Array(names)
    }

    private static func sameMailbox(_ lhs: String, _ rhs: String) -> Bool {
        guard let left = lhs.lastIndex(of: "@"), let right = rhs.lastIndex(of: "@") else { return false }
        return lhs[..<left] == rhs[..<right] && lhs[left...].lowercased() == rhs[right...].lowercased()
    }
}

extension IPAddressRange {
    /// `bytes` with an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its 4 IPv4 bytes.
    static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count == 16, bytes[..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else {
            return bytes
        }
        return Array(bytes[12...])
    }
}
