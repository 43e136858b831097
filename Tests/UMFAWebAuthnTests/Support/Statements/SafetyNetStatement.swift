import Crypto
import Foundation
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthn
import X509

/// Builds a genuine `android-safetynet` statement: a JWS (ES256) signed by a test
/// `attest.android.com` certificate; knobs break each §8.5 requirement.
struct SafetyNetStatement {
    var pki: TestPKI
    var hostname = "attest.android.com"
    var nonce: String?
    var ctsProfileMatch: Bool? = true
    var timestamp = Fixture.now
    var version: CBORValue = "14366018"
    var corruptSignature = false
    var omitX5C = false

    init(pki: TestPKI) { self.pki = pki }

    var attestation: RegistrationFactory.Attestation { .custom(format: "android-safetynet", build) }

    func build(_ input: RegistrationFactory.StatementInput) throws -> CBORMap {
        let key = P256.Signing.PrivateKey()
        let leaf = try pki.certificate(
            for: .init(key.publicKey), subject: try DistinguishedName { CommonName(hostname) },
            extensions: [try Certificate.Extension(SubjectAlternativeNames([.dnsName(hostname)]), critical: false)])
        var header: [String: Any] = ["alg": "ES256"]
        if !omitX5C {
            header["x5c"] = try [leaf, pki.root].map { Data(try AttestationSigner.der($0)).base64EncodedString() }
        }
        var payload: [String: Any] = [
            "nonce": nonce ?? Data(SHA256.hash(data: input.signedData)).base64EncodedString(),
            "timestampMs": Int64(timestamp.timeIntervalSince1970 * 1000), "apkPackageName": "com.google.android.gms",
        ]
        if let ctsProfileMatch { payload["ctsProfileMatch"] = ctsProfileMatch }
        let signingInput =
            Base64URL.encode(try JSONSerialization.data(withJSONObject: header)) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload))
        var signature = Array(try key.signature(for: Array(signingInput.utf8)).rawRepresentation)
        if corruptSignature { signature[5] ^= 0x01 }
        let jws = signingInput + "." + Base64URL.encode(signature)
        return CBORMap(["ver": version, "response": .byteString(Array(jws.utf8))])
    }
}
