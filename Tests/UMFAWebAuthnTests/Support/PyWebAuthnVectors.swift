import Foundation
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes
import X509

/// `Resources/pywebauthn-registration.json`: real-device registrations from py_webauthn's tests.
struct PyRegistrationFile: Decodable {
    struct Vector: Decodable {
        struct Expected: Decodable {
            let valid: Bool
            let credentialID: String?
            let signCount: UInt32?
            let aaguid: String?
            let credentialPublicKey: String?
            let attestationTypeHint: String?
            let errorContains: String?

            enum CodingKeys: String, CodingKey {
                case valid
                case credentialID = "credential_id"
                case signCount = "sign_count"
                case aaguid
                case credentialPublicKey = "credential_public_key"
                case attestationTypeHint = "attestation_type_hint"
                case errorContains = "error_contains"
            }
        }

        let name: String
        let fmt: String?
        let response: JSONValue
        let challenge: String
        let origin: String
        let expectedOrigins: [String]?
        let rpID: String
        let requireUserVerification: Bool
        let verificationTime: String?
        let supportedAlgorithms: [Int]?
        let rootCertificatesBase64: [String]
        let expected: Expected

        enum CodingKeys: String, CodingKey {
            case name, fmt, response, challenge, origin, expected
            case expectedOrigins = "expected_origins"
            case rpID = "rp_id"
            case requireUserVerification = "require_user_verification"
            case verificationTime = "verification_time"
            case supportedAlgorithms = "supported_algorithms"
            case rootCertificatesBase64 = "pem_root_certs_b64"
        }

        /// The relying party py_webauthn's test configured, with its roots as the only anchors.
        var policy: RelyingPartyPolicy {
            get throws {
                let roots = try rootCertificatesBase64.map { text in
                    guard let der = Data(base64Encoded: text) else { throw TestSetupError("root is not base64") }
                    return try Certificate(derEncoded: Array(der))
                }
                var policy = RelyingPartyPolicy(
                    rpID: rpID, origins: OriginPolicy(allowed: Set(expectedOrigins ?? [origin])),
                    userVerification: requireUserVerification ? .required : .preferred,
                    trustAnchors: AttestationTrustAnchors(roots: roots))
                if let supportedAlgorithms { policy.algorithms = supportedAlgorithms.map(COSEAlgorithm.init) }
                if !roots.isEmpty { policy.attestation = .trustedOnly }
                return policy
            }
        }
    }

    let vectors: [Vector]

    static func load() throws -> PyRegistrationFile {
        try VectorLoader.load(PyRegistrationFile.self, from: "pywebauthn-registration")
    }

    static func names() throws -> [String] { try load().vectors.map(\.name) }
}

/// `Resources/pywebauthn-authentication.json`: real-device assertions from py_webauthn's tests.
struct PyAuthenticationFile: Decodable {
    struct Vector: Decodable {
        struct Expected: Decodable {
            let valid: Bool
            let newSignCount: UInt32?
            let errorContains: String?

            enum CodingKeys: String, CodingKey {
                case valid
                case newSignCount = "new_sign_count"
                case errorContains = "error_contains"
            }
        }

        let name: String
        let response: JSONValue
        let challenge: String
        let origin: String
        let expectedOrigins: [String]?
        let rpID: String
        let credentialPublicKey: String
        let currentSignCount: UInt32
        let requireUserVerification: Bool
        let expected: Expected

        enum CodingKeys: String, CodingKey {
            case name, response, challenge, origin, expected
            case expectedOrigins = "expected_origins"
            case rpID = "rp_id"
            case credentialPublicKey = "credential_public_key"
            case currentSignCount = "credential_current_sign_count"
            case requireUserVerification = "require_user_verification"
        }

        var policy: RelyingPartyPolicy {
            RelyingPartyPolicy(
                rpID: rpID, origins: OriginPolicy(allowed: Set(expectedOrigins ?? [origin])),
                userVerification: requireUserVerification ? .required : .preferred)
        }
    }

    let vectors: [Vector]

    static func load() throws -> PyAuthenticationFile {
        try VectorLoader.load(PyAuthenticationFile.self, from: "pywebauthn-authentication")
    }

    static func names() throws -> [String] { try load().vectors.map(\.name) }
}

extension JSONValue {
    /// Decodes this value as `T`, as if it had been received on the wire.
    func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }
}
