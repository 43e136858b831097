import Foundation
import UMFAContract
import UMFAStorage
import UMFAWebAuthn

/// Certificate-bound tokens at the token endpoint (RFC 8705 §3, §4): a client registered with
/// ``ClientMetadata/tlsClientCertificateBoundAccessTokens`` gets access tokens bound to the certificate it
/// presented (`cnf.x5t#S256`, §3.1), and a public client's refresh tokens too (§4); a bound
/// refresh token works only with the same certificate.
///
/// With DPoP (RFC 9449) in the same request both bindings are made: the token's `cnf` names the
/// DPoP key and the certificate, and a resource checks both (RFC 7800 §3.1 allows several
/// confirmation members; each one is a condition of use).
enum CertificateBinding {
    /// The `x5t#S256` this request's tokens are bound to; `nil` when the client's are not bound.
    /// - Throws: `invalid_request` when the client's tokens must be bound and no certificate
    ///   came with the request.
    static func thumbprint(for client: OAuthClientRecord, caller: Caller) throws -> String? {
        guard client.tlsCertificateBoundAccessTokens else { return nil }
        guard let certificate = caller.clientCertificate else {
            throw OAuthError.invalidRequest(
                "This client's access tokens are bound to its TLS client certificate: connect with the certificate")
        }
        return certificate.thumbprintS256
    }

    /// Refuses a refresh token bound to a certificate (`bound`) unless the request presents it
    /// (RFC 8705 §4).
    static func checkRefresh(bound: String?, caller: Caller) throws {
        guard let bound else { return }
        guard let presented = caller.clientCertificate?.thumbprintS256,
            constantTimeEqual(Array(presented.utf8), Array(bound.utf8))
        else {
            throw OAuthError(
                code: .invalidGrant, "The refresh token is bound to a TLS client certificate: present the same one")
        }
    }
}
