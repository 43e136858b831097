import Foundation
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// `Resources/yubico-real-examples.json`: registration + assertion pairs from real devices,
/// extracted from Yubico java-webauthn-server's RealExamples.scala.
struct YubicoExampleFile: Decodable {
    struct Vector: Decodable {
        struct Registration: Decodable {
            let clientDataJSON: Base64URLBytes
            let attestationObject: Base64URLBytes
            let challenge: String
        }

        struct Authentication: Decodable {
            let credentialId: Base64URLBytes
            let clientDataJSON: Base64URLBytes
            let authenticatorData: Base64URLBytes
            let signature: Base64URLBytes
            let challenge: String
        }

        struct Expected: Decodable {
            let valid: Bool
            let error: String?
            let step: String?
        }

        let name: String
        let fmt: String
        let rpID: String
        let origin: String
        let registration: Registration
        let authentication: Authentication?
        let verificationTime: String?
        let expected: Expected

        enum CodingKeys: String, CodingKey {
            case name, fmt, origin, registration, authentication, expected
            case rpID = "rp_id"
            case verificationTime = "verification_time"
        }

        /// The response as the browser sent it; the credential id comes from authenticator data.
        func registrationResponse() throws -> RegistrationResponseJSON {
            let object = try AttestationObject(bytes: registration.attestationObject.bytes)
            guard let id = object.authenticatorData.attestedCredentialData?.credentialID else {
                throw TestSetupError("\(name) has no attested credential")
            }
            return RegistrationResponseJSON(
                rawId: Base64URLBytes(id),
                response: .init(
                    clientDataJSON: registration.clientDataJSON, attestationObject: registration.attestationObject))
        }

        func authenticationResponse(_ authentication: Authentication) -> AuthenticationResponseJSON {
            AuthenticationResponseJSON(
                rawId: authentication.credentialId,
                response: .init(
                    clientDataJSON: authentication.clientDataJSON, authenticatorData: authentication.authenticatorData,
                    signature: authentication.signature))
        }
    }

    let vectors: [Vector]

    static func load() throws -> YubicoExampleFile {
        try VectorLoader.load(YubicoExampleFile.self, from: "yubico-real-examples")
    }

    static func names() throws -> [String] { try load().vectors.map(\.name) }
}
