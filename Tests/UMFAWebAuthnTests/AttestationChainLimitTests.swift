import Crypto
import Foundation
import Testing
import UMFAWebAuthn
import X509

/// A client chooses the attestation chain it sends. Chain building tries every order of the
/// intermediates that share a name, so a chain of many copies of one name would take factorial
/// time: chains longer than ``AttestationTrustAnchors/chainLimit`` are refused before any is tried.
@Suite("Attestation: chain length limit")
struct AttestationChainLimitTests {
    /// A leaf and `copies` self-issued certificates that all name the same issuer, none of which
    /// chains to `pki`'s root.
    static func loopChain(copies: Int, pki: TestPKI) throws -> [Certificate] {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("Loop CA") }
        func certificate(subject: DistinguishedName, publicKey: Certificate.PublicKey, ca: Bool) throws -> Certificate {
            try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
                notValidBefore: TestPKI.notValidBefore, notValidAfter: TestPKI.notValidAfter, issuer: name,
                subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(
                        ca ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : .notCertificateAuthority)
                },
                issuerPrivateKey: .init(key))
        }
        let leaf = try certificate(
            subject: DistinguishedName { CommonName("Loop leaf") },
            publicKey: .init(P256.Signing.PrivateKey().publicKey),
            ca: false)
        return [leaf]
            + (try (0..<copies).map { _ in try certificate(subject: name, publicKey: .init(key.publicKey), ca: true) })
    }

    @Test("a chain longer than the limit is untrusted without being followed; one at the limit is followed")
    func limit() async throws {
        let pki = try TestPKI()
        let anchors = AttestationTrustAnchors(rootsByFormat: ["packed": [pki.root]])
        let time = Date(timeIntervalSince1970: 1_750_000_000)
        let long = try Self.loopChain(copies: AttestationTrustAnchors.chainLimit, pki: pki)
        guard case .untrusted(let reason) = await anchors.chainTrust(long, format: "packed", at: time) else {
            Issue.record("a chain of \(long.count) certificates was trusted")
            return
        }
        #expect(reason.contains("at most \(AttestationTrustAnchors.chainLimit) are followed"), "\(reason)")
        let atLimit = try Self.loopChain(copies: AttestationTrustAnchors.chainLimit - 1, pki: pki)
        guard case .untrusted(let followed) = await anchors.chainTrust(atLimit, format: "packed", at: time) else {
            Issue.record("the loop chain was trusted")
            return
        }
        #expect(followed.contains("does not validate"), "\(followed)")
    }
}
