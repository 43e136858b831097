import Crypto
import Foundation
import UMFACBOR
import UMFAEncoding
import X509

/// The `android-safetynet` attestation statement format (WebAuthn L3 §8.5): a SafetyNet
/// attestation API response, a JWS signed by Google for `attest.android.com`.
public struct AndroidSafetyNetAttestation: AttestationFormatVerifier {
    /// `android-safetynet`.
    public let format = "android-safetynet"
    /// How far the response's `timestampMs` may lie in the past at the verification time.
    public var maximumAge: TimeInterval
    /// How far `timestampMs` may lie in the future (clock skew).
    public var maximumSkew: TimeInterval

    /// Creates the verifier; by default a response must be at most a minute old.
    public init(maximumAge: TimeInterval = 60, maximumSkew: TimeInterval = 10) {
        self.maximumAge = maximumAge
        self.maximumSkew = maximumSkew
    }

    static func refuse(_ reason: String) -> WebAuthnError {
        WebAuthnError(.invalidAttestation, "android-safetynet: \(reason)", step: AttestationStatementFields.step)
    }

    /// Checks the statement as §8.5's verification procedure says.
    public func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement {
        // Step 1: the statement is well formed; extract ver and response.
        guard let version = statement["ver"]?.stringValue, !version.isEmpty else {
            throw Self.refuse("ver must be a non-empty text string")
        }
        guard let responseBytes = statement["response"]?.bytesValue,
            let responseText = String(bytes: responseBytes, encoding: .utf8)
        else {
            throw Self.refuse("response must be a UTF-8 byte string")
        }
        // Step 2: verify the response as the SafetyNet documentation says: a JWS signed by the
        // leaf of its x5c chain, issued to attest.android.com.
        let jws: CompactJWS
        let certificates: [Certificate]
        do {
            jws = try CompactJWS(responseText)
            certificates = try jws.certificates()
        } catch {
            throw Self.refuse("response is not a JWS with an x5c chain: \(error.reason)")
        }
        guard jws.isSigned(by: certificates[0]) else {
            throw Self.refuse("the response's JWS signature does not verify with its leaf certificate")
        }
        guard Self.hostnames(of: certificates[0]).contains("attest.android.com") else {
            throw Self.refuse("the response is not signed by a certificate for attest.android.com")
        }
        guard let payload = try? JSONDecoder().decode(JSONValue.self, from: Data(jws.payload)).objectValue else {
            throw Self.refuse("the response payload is not a JSON object")
        }
        // Step 3: nonce is base64(SHA-256(authenticatorData ‖ clientDataHash)).
        let nonce = Data(SHA256.hash(data: authenticatorData.rawBytes + clientDataHash)).base64EncodedString()
        guard payload["nonce"]?.stringValue == nonce else {
            throw Self.refuse("nonce is not the hash of authenticatorData and clientDataHash")
        }
        // Step 4: the device passed the compatibility test suite.
        guard payload["ctsProfileMatch"]?.boolValue == true else {
            throw Self.refuse("ctsProfileMatch is not true")
        }
        // Step 4 (continued): the response is fresh at the verification time.
        guard case .number(let milliseconds) = payload["timestampMs"] else {
            throw Self.refuse("timestampMs is missing")
        }
        let issued = Date(timeIntervalSince1970: milliseconds / 1000)
        guard issued <= time.addingTimeInterval(maximumSkew) else {
            throw Self.refuse("timestampMs lies in the future")
        }
        guard issued >= time.addingTimeInterval(-maximumAge) else {
            throw Self.refuse("timestampMs is older than \(Int(maximumAge)) seconds")
        }
        // Step 5: attestation type Basic with the x5c trust path.
        return VerifiedAttestationStatement(type: .basic, trustPath: certificates)
    }

    /// The DNS names in the subject alternative names, and the subject's common names.
    static func hostnames(of certificate: Certificate) -> [String] {
        let names = (try? certificate.extensions.subjectAlternativeNames).flatMap { $0 } ?? SubjectAlternativeNames()
        let dnsNames = names.compactMap { name -> String? in
            if case .dnsName(let host) = name { return host }
            return nil
        }
        return dnsNames + AttestationStatementFields.subjectValues(certificate, .RDNAttributeType.commonName)
    }
}
