import Foundation
import UMFAStorage
import UMFAWebAuthn
import X509

/// Mutual-TLS client authentication (RFC 8705 §2): the client's TLS certificate is its
/// credential. `tls_client_auth` (§2.1): the certificate chains to one of the server's trust
/// anchors and carries the subject DN or SAN the client registered. `self_signed_tls_client_auth`
/// (§2.2): the certificate is one the client registered in its `jwks` (`x5c`).
struct MutualTLSClientAuthentication: Sendable {
    /// The CAs `tls_client_auth` certificates must chain to (`UMFA_MTLS_TRUST_ANCHORS`).
    let anchors: [Certificate]
    /// The time the chain is validated at.
    let now: Date

    /// Why a presented certificate does not authenticate the client.
    struct Refusal: Error, Sendable {
        /// For the developer and the log; never certificate contents beyond what the client sent.
        let message: String
        /// Whether it looks like a guess (another certificate) rather than a misconfiguration.
        let counted: Bool
    }

    /// Checks `presented` against `client`'s registered certificate rules.
    /// - Throws: ``Refusal``.
    func verify(_ client: OAuthClientRecord, presented: PresentedClientCertificate?) async throws {
        // RFC 8705 §2: the request must come over mutual TLS (or a trusted proxy's header).
        guard let presented else {
            throw Refusal(
                message: "This client authenticates with a TLS client certificate; none was presented", counted: false)
        }
        guard let certificate = try? Certificate(derEncoded: presented.der) else {
            throw Refusal(message: "The client certificate cannot be parsed", counted: true)
        }
        switch client.authenticationMethod {
        case .tlsClientAuth:
            try await verifyPKI(certificate, client: client)
        case .selfSignedTLSClientAuth:
            try verifySelfSigned(presented, client: client)
        default:
            throw Refusal(message: "The client does not authenticate with a TLS client certificate", counted: false)
        }
    }

    /// RFC 8705 §2.1: the chain to a configured trust anchor, then the registered subject.
    private func verifyPKI(_ certificate: Certificate, client: OAuthClientRecord) async throws {
        guard !anchors.isEmpty else {
            throw Refusal(
                message: "tls_client_auth needs the server's trust anchors (UMFA_MTLS_TRUST_ANCHORS)", counted: false)
        }
        guard let subject = client.tlsClientAuthSubject else {
            throw Refusal(message: "The client registered no certificate subject", counted: false)
        }
        // Step 1 (§2.1): the certificate chains to a trust anchor, is valid now, and is an
        // end entity's that may sign for TLS client authentication (RFC 5280).
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) {
            RFC5280Policy(validationTime: now)
            EndEntityClientCertificatePolicy()
        }
        guard case .validCertificate = await verifier.validate(leaf: certificate, intermediates: CertificateStore())
        else {
            throw Refusal(
                message:
                    "The client certificate does not chain to a trusted CA, is not valid now, or is not an end-entity certificate for client authentication",
                counted: true)
        }
        // Step 2 (§2.1.2): it carries the one subject value the client registered.
        guard CertificateSubjectMatch.matches(certificate, subject) else {
            throw Refusal(
                message: "The client certificate does not match the client's \(subject.metadataName)", counted: true)
        }
    }

    /// RFC 8705 §2.2: the presented certificate is one of the client's registered `x5c`
    /// certificates (the first of each JWK's chain), compared as DER bytes.
    private func verifySelfSigned(_ presented: PresentedClientCertificate, client: OAuthClientRecord) throws {
        let registered = Self.registeredCertificates(inJWKS: client.jwks ?? "")
        guard registered.contains(where: { constantTimeEqual($0, presented.der) }) else {
            throw Refusal(message: "The client certificate is not one the client registered in jwks", counted: true)
        }
    }

    /// The first `x5c` certificate (standard base64 DER, RFC 7517 §4.7) of each key of a JWK Set.
    static func registeredCertificates(inJWKS jwks: String) -> [[UInt8]] {
        guard let set = try? JSONDecoder().decode(CertificateJWKS.self, from: Data(jwks.utf8)) else { return [] }
        return set.keys.compactMap { key in
            key.x5c?.first.flatMap { Data(base64Encoded: $0) }.map { Array($0) }
        }
    }

    /// The part of a JWK Set a self-signed client's certificates are read from.
    private struct CertificateJWKS: Decodable {
        struct Key: Decodable { let x5c: [String]? }
        let keys: [Key]
    }
}
