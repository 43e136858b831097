import Foundation
import UMFAContract
import UMFAStorage
import X509

/// The RFC 8705 client metadata (§2.1.2, §2.2, §3.4) as the admin API and dynamic registration
/// take it: a request that breaks a rule is 400 naming the member, and nothing is stored.
extension OAuthClientSettings {
    /// The subject members of RFC 8705 §2.1.2, by wire name, in the order they are read.
    static let subjectMembers = ClientMetadata.Member.certificateSubject.map(\.stringValue)

    /// `client` with the request's mutual-TLS members applied.
    static func applyMutualTLS(_ request: OAuthClientRequest, to client: inout OAuthClientRecord) throws {
        let named = ClientMetadata.Member.certificateSubject.compactMap { member in
            request[certificateSubject: member].map { (member, $0) }
        }
        // RFC 8705 §2.1.2: exactly one of the subject members.
        if named.count > 1 {
            throw ServiceError.invalid(
                "Register exactly one of \(subjectMembers.joined(separator: ", ")) (RFC 8705 §2.1.2)",
                field: named[1].0.stringValue)
        }
        if let (member, value) = named.first {
            let name = member.stringValue
            guard client.authenticationMethod == .tlsClientAuth else {
                throw ServiceError.invalid(
                    "\(name) is for \(Member.tokenEndpointAuthMethod) tls_client_auth", field: name)
            }
            guard let subject = TLSClientAuthSubject(member: member, value: value), isValid(subject) else {
                throw ServiceError.invalid(description(of: member), field: name)
            }
            client.tlsClientAuthSubject = subject
        }
        if let bound = request.tlsClientCertificateBoundAccessTokens { client.tlsCertificateBoundAccessTokens = bound }
    }

    /// The mutual-TLS rules of the settings taken together.
    static func checkMutualTLS(_ client: inout OAuthClientRecord) throws {
        switch client.authenticationMethod {
        case .tlsClientAuth:
            guard client.tlsClientAuthSubject != nil else {
                throw ServiceError.invalid(
                    "tls_client_auth needs exactly one of \(subjectMembers.joined(separator: ", ")) (RFC 8705 §2.1.2)",
                    field: ClientMetadata.Member.tlsClientAuthSubjectDN.stringValue)
            }
        case .selfSignedTLSClientAuth:
            // RFC 8705 §2.2: the client's certificates, each the first x5c entry of a JWK.
            let certificates = MutualTLSClientAuthentication.registeredCertificates(inJWKS: client.jwks ?? "")
            guard !certificates.isEmpty, certificates.allSatisfy({ (try? Certificate(derEncoded: $0)) != nil }) else {
                throw ServiceError.invalid(
                    "self_signed_tls_client_auth needs \(Member.jwks) whose keys carry the client's certificate in x5c (RFC 8705 §2.2)",
                    field: Member.jwks.stringValue)
            }
            client.tlsClientAuthSubject = nil
        default:
            // A subject left from an earlier method means nothing now.
            client.tlsClientAuthSubject = nil
        }
    }

    private static func isValid(_ subject: TLSClientAuthSubject) -> Bool {
        let value = subject.value
        guard (1...1000).contains(value.utf8.count), !value.utf8.contains(0) else { return false }
        switch subject {
        case .subjectDN: return DistinguishedNameText.normalized(value) != nil
        case .sanDNS: return value.utf8.count <= 253 && !value.contains(" ")
        case .sanURI: return URLComponents(string: value)?.scheme != nil
        case .sanIP: return IPAddressRange.bytes(of: value) != nil
        case .sanEmail: return value.contains("@") && !value.contains(" ")
        }
    }

    private static func description(of member: ClientMetadata.Member) -> String {
        let name = member.stringValue
        return switch member {
        case .tlsClientAuthSubjectDN: "\(name) must be an RFC 4514 distinguished name"
        case .tlsClientAuthSANIP: "\(name) must be an IPv4 or IPv6 address"
        case .tlsClientAuthSANURI: "\(name) must be an absolute URI"
        case .tlsClientAuthSANEmail: "\(name) must be an email address"
        default: "\(name) must be a DNS name"
        }
    }
}

/// The members a message names, by their wire names.
private typealias Member = ClientMetadata.Member
