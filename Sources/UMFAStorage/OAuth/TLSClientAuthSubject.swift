import Foundation
import UMFAContract

/// The one certificate subject value a `tls_client_auth` client registers (RFC 8705 §2.1.2):
/// its subject distinguished name, or one subject alternative name of one kind.
package enum TLSClientAuthSubject: Sendable, Equatable {
    /// `tls_client_auth_subject_dn`: an RFC 4514 string.
    case subjectDN(String)
    /// `tls_client_auth_san_dns`: a dNSName SAN.
    case sanDNS(String)
    /// `tls_client_auth_san_uri`: a uniformResourceIdentifier SAN.
    case sanURI(String)
    /// `tls_client_auth_san_ip`: an iPAddress SAN, IPv4 dotted or IPv6 (RFC 5952) text.
    case sanIP(String)
    /// `tls_client_auth_san_email`: an rfc822Name SAN.
    case sanEmail(String)

    /// The client metadata member that carries it (RFC 8705 §2.1.2).
    package var member: ClientMetadata.Member {
        switch self {
        case .subjectDN: .tlsClientAuthSubjectDN
        case .sanDNS: .tlsClientAuthSANDNS
        case .sanURI: .tlsClientAuthSANURI
        case .sanIP: .tlsClientAuthSANIP
        case .sanEmail: .tlsClientAuthSANEmail
        }
    }

    /// The member's wire name.
    package var metadataName: String { member.stringValue }

    /// The registered value.
    package var value: String {
        switch self {
        case .subjectDN(let value), .sanDNS(let value), .sanURI(let value), .sanIP(let value), .sanEmail(let value):
            value
        }
    }

    /// The subject from its metadata member and value; `nil` for a member that names no subject.
    package init?(member: ClientMetadata.Member, value: String) {
        switch member {
        case .tlsClientAuthSubjectDN: self = .subjectDN(value)
        case .tlsClientAuthSANDNS: self = .sanDNS(value)
        case .tlsClientAuthSANURI: self = .sanURI(value)
        case .tlsClientAuthSANIP: self = .sanIP(value)
        case .tlsClientAuthSANEmail: self = .sanEmail(value)
        default: return nil
        }
    }
}
