import Foundation

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
    package var metadataName: String {
        switch self {
        case .subjectDN: "tls_client_auth_subject_dn"
        case .sanDNS: "tls_client_auth_san_dns"
        case .sanURI: "tls_client_auth_san_uri"
        case .sanIP: "tls_client_auth_san_ip"
        case .sanEmail: "tls_client_auth_san_email"
        }
    }

    /// The registered value.
    package var value: String {
        switch self {
        case .subjectDN(let value), .sanDNS(let value), .sanURI(let value), .sanIP(let value), .sanEmail(let value):
            value
        }
    }

    /// The subject from its metadata member name and value; `nil` for another name.
    package init?(metadataName: String, value: String) {
        switch metadataName {
        case "tls_client_auth_subject_dn": self = .subjectDN(value)
        case "tls_client_auth_san_dns": self = .sanDNS(value)
        case "tls_client_auth_san_uri": self = .sanURI(value)
        case "tls_client_auth_san_ip": self = .sanIP(value)
        case "tls_client_auth_san_email": self = .sanEmail(value)
        default: return nil
        }
    }

    /// As stored: `{"<metadata name>": "<value>"}`.
    package var storedText: String { StoredValue.json(encoding: [metadataName: value]) }

    /// The stored form read back; `nil` when it is not one member of a known name.
    package init?(storedText: String) {
        guard let object = try? JSONDecoder().decode([String: String].self, from: Data(storedText.utf8)),
            object.count == 1, let (name, value) = object.first
        else { return nil }
        self.init(metadataName: name, value: value)
    }
}
