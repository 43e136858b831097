import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// `Resources/w3c-webauthn-test-vectors.json`: the WebAuthn specification's test vectors.
struct W3CVectorFile: Decodable {
    let rpID: String
    let origin: String
    let topOrigin: String
    let attestationCACertificateHex: String
    let vectors: [W3CVector]

    enum CodingKeys: String, CodingKey {
        case rpID = "rp_id"
        case origin
        case topOrigin = "top_origin"
        case attestationCACertificateHex = "attestation_ca_cert_hex"
        case vectors
    }

    static func load() throws -> W3CVectorFile {
        try VectorLoader.load(W3CVectorFile.self, from: "w3c-webauthn-test-vectors")
    }

    func vector(_ id: String) throws -> W3CVector {
        guard let vector = vectors.first(where: { $0.id == id }) else { throw TestSetupError("no vector \(id)") }
        return vector
    }
}

/// One registration and authentication pair.
struct W3CVector: Decodable {
    struct Registration: Decodable {
        let challenge: Base64URLBytes
        let clientDataJSON: Base64URLBytes
        let attestationObject: Base64URLBytes
        let credentialID: Base64URLBytes
        let aaguidHex: String

        enum CodingKeys: String, CodingKey {
            case challenge, clientDataJSON, attestationObject
            case credentialID = "credential_id"
            case aaguidHex = "aaguid_hex"
        }
    }

    struct Authentication: Decodable {
        let challenge: Base64URLBytes
        let clientDataJSON: Base64URLBytes
        let authenticatorData: Base64URLBytes
        let signature: Base64URLBytes
    }

    let id: String
    let registration: Registration
    let authentication: Authentication

    var registrationResponse: RegistrationResponseJSON {
        RegistrationResponseJSON(
            rawId: registration.credentialID,
            response: .init(
                clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject))
    }

    func authenticationResponse(signature: Base64URLBytes? = nil) -> AuthenticationResponseJSON {
        AuthenticationResponseJSON(
            rawId: registration.credentialID,
            response: .init(
                clientDataJSON: authentication.clientDataJSON, authenticatorData: authentication.authenticatorData,
                signature: signature ?? authentication.signature))
    }
}

/// What UMFA must conclude about each specification vector.
enum W3CExpectation: Sendable {
    /// Registers with this format, attestation type and key algorithm, then authenticates.
    case registers(format: String, type: AttestationType, algorithm: COSEAlgorithm)
    /// Refused with this code at this step.
    case refused(WebAuthnError.Code, step: String)

    static let byVector: [String: W3CExpectation] = [
        "none-es256": .registers(format: "none", type: .none, algorithm: .es256),
        "packed-self-es256": .registers(format: "packed", type: .self, algorithm: .es256),
        "none-es256-crossOrigin": .registers(format: "none", type: .none, algorithm: .es256),
        "none-es256-topOrigin": .registers(format: "none", type: .none, algorithm: .es256),
        "none-es256-long-credential-id": .registers(format: "none", type: .none, algorithm: .es256),
        "packed-es256": .registers(format: "packed", type: .basic, algorithm: .es256),
        "packed-es384": .registers(format: "packed", type: .basic, algorithm: .es384),
        "packed-es512": .registers(format: "packed", type: .basic, algorithm: .es512),
        "packed-rs256": .registers(format: "packed", type: .basic, algorithm: .rs256),
        "packed-eddsa": .registers(format: "packed", type: .basic, algorithm: .edDSA),
        "packed-ed448": .refused(.unsupportedAlgorithm, step: "7.1 step 13"),
        "tpm-es256": .registers(format: "tpm", type: .attCA, algorithm: .es256),
        "android-key-es256": .registers(format: "android-key", type: .basic, algorithm: .es256),
        "apple-es256": .registers(format: "apple", type: .anonCA, algorithm: .es256),
        "fido-u2f-es256": .registers(format: "fido-u2f", type: .basic, algorithm: .es256),
    ]
}
