import Crypto
import Foundation
import UMFAEncoding
import UMFAWebAuthn
import X509
import _CryptoExtras

/// Signs an MDS3 metadata BLOB (a compact JWS with an `x5c` header) with a test signer
/// chained to a test root, as the FIDO Alliance signs the real one.
struct MetadataBLOBBuilder {
    var pki: TestPKI
    var entries: [[String: Any]] = []
    var algorithm = "ES256"
    var corruptSignature = false
    var signerNotValidAfter = TestPKI.notValidAfter

    init(pki: TestPKI) { self.pki = pki }

    /// Adds an entry for `aaguid` with a name, roots and statuses.
    mutating func add(aaguid: [UInt8], description: String, roots: [Certificate], statuses: [String]) throws {
        entries.append([
            "aaguid": AAGUID.string(aaguid),
            "metadataStatement": [
                "description": description, "aaguid": AAGUID.string(aaguid),
                "attestationRootCertificates": try roots.map {
                    Data(try AttestationSigner.der($0)).base64EncodedString()
                },
            ] as [String: Any],
            "statusReports": statuses.map { ["status": $0, "effectiveDate": "2024-03-01"] },
            "timeOfLastStatusChange": "2024-03-01",
        ])
    }

    func make() throws -> String {
        let signerCertificate: Certificate
        let sign: ([UInt8]) throws -> [UInt8]
        let subject = try DistinguishedName { CommonName("UMFA Test Metadata Signer") }
        if algorithm == "RS256" {
            guard case .rsa(let key, _) = try TestKey.make(.rs256) else { throw TestSetupError("no RSA key") }
            signerCertificate = try pki.certificate(
                for: .init(key.publicKey), subject: subject, extensions: [], notValidAfter: signerNotValidAfter)
            sign = {
                Array(try key.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation)
            }
        } else {
            let key = P256.Signing.PrivateKey()
            signerCertificate = try pki.certificate(
                for: .init(key.publicKey), subject: subject, extensions: [], notValidAfter: signerNotValidAfter)
            sign = { Array(try key.signature(for: $0).rawRepresentation) }
        }
        let header: [String: Any] = [
            "alg": algorithm, "typ": "JWT",
            "x5c": try [signerCertificate].map { Data(try AttestationSigner.der($0)).base64EncodedString() },
        ]
        let payload: [String: Any] = [
            "legalHeader": "test", "no": 42, "nextUpdate": "2025-07-01", "entries": entries,
        ]
        let signingInput =
            Base64URL.encode(try JSONSerialization.data(withJSONObject: header)) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload))
        var signature = try sign(Array(signingInput.utf8))
        if corruptSignature { signature[3] ^= 0x01 }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
