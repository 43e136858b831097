import Crypto
import Foundation
import UMFAEncoding
import UMFAJOSE
import UMFAWebAuthnTypes
import X509

/// A JWS in compact serialisation (RFC 7515 §7.1) whose header carries its signer's
/// certificate chain in `x5c`, as SafetyNet responses and FIDO metadata BLOBs do.
///
/// The signature is checked over the exact received `header.payload` bytes.
struct CompactJWS: Sendable {
    /// Why a JWS could not be read or did not verify.
    struct Failure: Error, Sendable {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The protected header.
    let header: [String: JSONValue]
    /// The decoded payload.
    let payload: [UInt8]
    /// `BASE64URL(header) . BASE64URL(payload)`, as signed.
    let signingInput: [UInt8]
    /// The decoded signature.
    let signature: [UInt8]

    /// Splits and decodes `text` (``CompactJWSParts``, with padding and the standard alphabet
    /// read too), around which white space is ignored.
    init(_ text: String) throws(Failure) {
        let parts: CompactJWSParts
        do throws(CompactJWSParts.Failure) {
            parts = try CompactJWSParts(text.trimmingCharacters(in: .whitespacesAndNewlines), canonical: false)
        } catch {
            switch error {
            case .notThreeParts: throw Failure("a compact JWS has three dot-separated parts")
            case .notBase64URL: throw Failure("a JWS part is not base64url")
            }
        }
        guard let header = try? JSONDecoder().decode(JSONValue.self, from: Data(parts.header)).objectValue else {
            throw Failure("the JWS header is not a JSON object")
        }
        self.header = header
        self.payload = parts.payload
        self.signature = parts.signature
        self.signingInput = parts.signingInput
    }

    /// The `alg` header.
    var algorithm: String? { header["alg"]?.stringValue }

    /// The `x5c` header's certificates (standard base64 DER), leaf first.
    func certificates() throws(Failure) -> [Certificate] {
        guard case .array(let items) = header["x5c"], !items.isEmpty else {
            throw Failure("the JWS header has no x5c certificate chain")
        }
        var certificates: [Certificate] = []
        for item in items {
            guard let text = item.stringValue, let der = Data(base64Encoded: text),
                let certificate = try? Certificate(derEncoded: [UInt8](der))
            else {
                throw Failure("an x5c entry is not a base64 DER certificate")
            }
            certificates.append(certificate)
        }
        return certificates
    }

    /// Whether the signature verifies with `certificate`'s key under the header's `alg`
    /// (RS256/384/512, PS256/384/512, ES256/384/512).
    func isSigned(by certificate: Certificate) -> Bool {
        let algorithms: [String: COSEAlgorithm] = [
            "RS256": .rs256, "RS384": .rs384, "RS512": .rs512, "PS256": .ps256, "PS384": .ps384, "PS512": .ps512,
            "ES256": .es256, "ES384": .es384, "ES512": .es512,
        ]
        guard let name = algorithm, let cose = algorithms[name],
            let key = try? SignatureVerifyingKey.make(algorithm: cose, certificateKey: certificate.publicKey)
        else { return false }
        // JWS ECDSA signatures are r ‖ s; the verifying key takes DER.
        let der: [UInt8]?
        switch cose {
        case .es256:
            der = (try? P256.Signing.ECDSASignature(rawRepresentation: signature)).map { Array($0.derRepresentation) }
        case .es384:
            der = (try? P384.Signing.ECDSASignature(rawRepresentation: signature)).map { Array($0.derRepresentation) }
        case .es512:
            der = (try? P521.Signing.ECDSASignature(rawRepresentation: signature)).map { Array($0.derRepresentation) }
        default: der = signature
        }
        guard let der else { return false }
        return key.isValidSignature(der, for: signingInput)
    }
}
