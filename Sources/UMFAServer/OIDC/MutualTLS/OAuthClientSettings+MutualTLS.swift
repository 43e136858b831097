import Foundation
import UMFAContract
import UMFAStorage
import X509

/// The RFC 8705 client metadata (§2.1.2, §2.2, §3.4) as the admin API and dynamic registration
/// take it: a request that breaks a rule is 400 naming the member, and nothing is stored.
extension OAuthClientSettings {
    /// The subject members of RFC 8705 §2.1.2, in the order they are read.
    static let subjectMembers = [
        "tls_client_auth_subject_dn", "tls_client_auth_san_dns", "tls_client_auth_san_uri", "tls_client_auth_san_ip",
        "tls_client_auth_san_email",
    ]

    /// `client` with the request's mutual-TLS members applied.
    static func applyMutualTLS(_ request: OAuthClientRequest, to client: inout OAuthClientRecord) throws {
        let given = [
            request.tlsClientAuthSubjectDN, request.tlsClientAuthSANDNS, request.tlsClientAuthSANURI,
            request.tlsClientAuthSANIP, request.tlsClientAuthSANEmail,
        ]
        let named = zip(subjectMembers, given).compactMap { name, value in value.map { (name, $0) } }
        // RFC 8705 §2.1.2: exactly one of the subject members.
        if named.count > 1 {
            throw ServiceError.invalid(
                "Register exactly one of \(subjectMembers.joined(separator: ", ")) (RFC 8705 §2.1.2)",
                field: named[1].0)
        }
        if let (name, value) = named.first {
            guard client.authenticationMethod == .tlsClientAuth else {
                throw ServiceError.invalid(
                    "\(name) is for token_endpoint_auth_method tls_client_auth", field: name)
            }
            guard let subject = TLSClientAuthSubject(metadataName: name, value: value), isValid(subject) else {
                throw ServiceError.invalid(description(of: name), field: name)
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
                    field: "tls_client_auth_subject_dn")
            }
        case .selfSignedTLSClientAuth:
            // RFC 8705 §2.2: the client's certificates, each the first x5c entry of a JWK.
            let certificates = MutualTLSClientAuthentication.registeredCertificates(inJWKS: client.jwks ?? "")
            guard !certificates.isEmpty, certificates.allSatisfy({ (try? Certificate(derEncoded: $0)) != nil }) else {
                throw ServiceError.invalid(
                    "self_signed_tls_client_auth needs jwks whose keys carry the client's certificate in x5c (RFC 8705 §2.2)",
                    field: "jwks")
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

    private static func description(of member: String) -> String {
        switch member {
        case "tls_client_auth_subject_dn": "tls_client_auth_subject_dn must be an RFC 4514 distinguished name"
        case "tls_client_auth_san_ip": "tls_client_auth_san_ip must be an IPv4 or IPv6 address"
        case "tls_client_auth_san_uri": "tls_client_auth_san_uri must be an absolute URI"
        case "tls_client_auth_san_email": "tls_client_auth_san_email must be an email address"
        default: "\(member) must be a DNS name"
        }
    }
}

extension OAuthClientView {
    /// The view with the client's RFC 8705 members.
    func withMutualTLS(_ client: OAuthClientRecord) -> OAuthClientView {
        var view = self
        view.tlsClientCertificateBoundAccessTokens = client.tlsCertificateBoundAccessTokens
        switch client.tlsClientAuthSubject {
        case .subjectDN(let value): view.tlsClientAuthSubjectDN = value
        case .sanDNS(let value): view.tlsClientAuthSANDNS = value
        case .sanURI(let value): view.tlsClientAuthSANURI = value
        case .sanIP(let value): view.tlsClientAuthSANIP = value
        case .sanEmail(let value): view.tlsClientAuthSANEmail = value
        case nil: break
        }
        return view
    }
}

extension ClientRegistrationResponse {
    /// The answer with the client's RFC 8705 members.
    func withMutualTLS(_ client: OAuthClientRecord) -> ClientRegistrationResponse {
        var answer = self
        answer.tlsClientCertificateBoundAccessTokens = client.tlsCertificateBoundAccessTokens
        switch client.tlsClientAuthSubject {
        case .subjectDN(let value): answer.tlsClientAuthSubjectDN = value
        case .sanDNS(let value): answer.tlsClientAuthSANDNS = value
        case .sanURI(let value): answer.tlsClientAuthSANURI = value
        case .sanIP(let value): answer.tlsClientAuthSANIP = value
        case .sanEmail(let value): answer.tlsClientAuthSANEmail = value
        case nil: break
        }
        return answer
    }
}

extension OAuthClientRequest {
    /// The request with a registration's RFC 8705 members (RFC 7591 §2 metadata, RFC 8705 §2.1.2,
    /// §3.4).
    mutating func takeMutualTLS(from body: ClientRegistrationRequest) {
        tlsClientAuthSubjectDN = body.tlsClientAuthSubjectDN
        tlsClientAuthSANDNS = body.tlsClientAuthSANDNS
        tlsClientAuthSANURI = body.tlsClientAuthSANURI
        tlsClientAuthSANIP = body.tlsClientAuthSANIP
        tlsClientAuthSANEmail = body.tlsClientAuthSANEmail
        tlsClientCertificateBoundAccessTokens = body.tlsClientCertificateBoundAccessTokens
    }
}
