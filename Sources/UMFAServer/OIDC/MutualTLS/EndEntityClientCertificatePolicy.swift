import SwiftASN1
import X509

/// RFC 5280 rules for the end-entity certificate a `tls_client_auth` client authenticates with
/// (RFC 8705 §2.1), beside swift-certificates' `RFC5280Policy`, which checks the chain but, like
/// browsers, neither key usage nor whether the leaf itself is a CA:
/// - basic constraints (§4.2.1.9): `cA` must not be asserted: a CA certificate, the trust anchor
///   itself included, is not a client's credential;
/// - key usage (§4.2.1.3), when present: `digitalSignature`, the bit TLS client authentication
///   signs with (RFC 8446 §4.4.3);
/// - extended key usage (§4.2.1.12), when present: `clientAuth` or `anyExtendedKeyUsage`.
///
/// Marks the extensions client certificates often flag critical (subject alternative name,
/// extended key usage) as understood. An extension that cannot be read fails the policy.
struct EndEntityClientCertificatePolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.subjectAlternativeName, .X509ExtensionID.extendedKeyUsage,
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        let extensions = chain.leaf.extensions
        do {
            // Step 1 (RFC 5280 §4.2.1.9): not a CA.
            if case .isCertificateAuthority = try extensions.basicConstraints {
                return .failsToMeetPolicy(reason: "the client certificate is a CA certificate (cA TRUE)")
            }
            // Step 2 (RFC 5280 §4.2.1.3): a key that may sign.
            if let usage = try extensions.keyUsage, !usage.digitalSignature {
                return .failsToMeetPolicy(reason: "the client certificate's key usage excludes digitalSignature")
            }
            // Step 3 (RFC 5280 §4.2.1.12): a purpose that includes TLS client authentication.
            if let usage = try extensions.extendedKeyUsage, !usage.contains(.clientAuth), !usage.contains(.any) {
                return .failsToMeetPolicy(reason: "the client certificate's extended key usage excludes clientAuth")
            }
        } catch {
            return .failsToMeetPolicy(reason: "the client certificate's extensions cannot be read")
        }
        return .meetsPolicy
    }
}
