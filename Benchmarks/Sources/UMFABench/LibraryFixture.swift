import ArgumentParser
import Crypto
import Foundation
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Real ES256 responses from the software authenticator, prepared before any clock starts.
struct LibraryFixture {
    struct Prepared<Response> {
        let response: Response
        let challenge: [UInt8]
        var userHandle: [UInt8] = []
    }

    struct RawInput {
        let key: P256.Signing.PublicKey
        let signature: P256.Signing.ECDSASignature
        let message: Data
    }

    static let rpID = "bench.example"
    static let origin = "https://bench.example"

    let policy: RelyingPartyPolicy
    let record: CredentialRecord
    let assertions: [Prepared<AuthenticationResponseJSON>]
    let rawInputs: [RawInput]
    let noneRegistrations: [Prepared<RegistrationResponseJSON>]
    let packedRegistrations: [Prepared<RegistrationResponseJSON>]

    static func make(count: Int) async throws -> LibraryFixture {
        let client = WebAuthnClient(
            origin: origin, authenticator: SoftwareAuthenticator(store: InMemoryCredentialStore()))
        let policy = RelyingPartyPolicy(
            rpID: rpID, origins: OriginPolicy(allowed: [origin]), userVerification: .discouraged)
        let none = try (0..<count).map { _ in try register(client, attestation: .none) }
        let packed = try (0..<count).map { _ in try register(client, attestation: .direct) }
        let first = try await RegistrationVerifier(policy: policy).verify(
            none[0].response, expectedChallenge: none[0].challenge, userHandle: none[0].userHandle)
        let assertions = try (0..<count).map { _ in
            let challenge = randomChallenge()
            let options = RequestOptionsJSON(
                challenge: Base64URLBytes(challenge), rpId: rpID,
                allowCredentials: [CredentialDescriptor(id: Base64URLBytes(first.record.id))],
                userVerification: .discouraged)
            return Prepared(response: try client.get(options, userVerified: false), challenge: challenge)
        }
        let key = try P256.Signing.PublicKey(derRepresentation: first.record.publicKey.subjectPublicKeyInfo)
        let raw = try assertions.map { assertion in
            let response = assertion.response.response
            let message = Data(response.authenticatorData.bytes + SHA256.hash(data: response.clientDataJSON.bytes))
            return RawInput(
                key: key, signature: try P256.Signing.ECDSASignature(derRepresentation: response.signature.bytes),
                message: message)
        }
        return LibraryFixture(
            policy: policy, record: first.record, assertions: assertions, rawInputs: raw,
            noneRegistrations: none, packedRegistrations: packed)
    }

    private static func register(_ client: WebAuthnClient, attestation: AttestationConveyancePreference) throws
        -> Prepared<RegistrationResponseJSON>
    {
        let challenge = randomChallenge()
        let userHandle = randomChallenge()
        let options = CreationOptionsJSON(
            rp: RelyingPartyEntity(id: rpID, name: "Bench"),
            user: UserEntity(id: Base64URLBytes(userHandle), name: "bench", displayName: "Bench"),
            challenge: Base64URLBytes(challenge), pubKeyCredParams: [CredentialParameters(alg: .es256)],
            attestation: attestation)
        return Prepared(
            response: try client.create(options, userVerified: false), challenge: challenge, userHandle: userHandle)
    }

    static func randomChallenge() -> [UInt8] { SoftwareAuthenticator.systemRandomBytes(32) }

    /// Writes the prepared responses as JSON for `scripts/bench/pywebauthn_bench.py`.
    func writeVectors(to path: String) throws {
        let encoder = JSONEncoder()
        func json(_ value: some Encodable) throws -> Any {
            try JSONSerialization.jsonObject(with: try encoder.encode(value))
        }
        let object: [String: Any] = [
            "rp_id": Self.rpID, "origin": Self.origin,
            "credential_public_key": Base64URL.encode(record.publicKey.encoded),
            "authentications": try assertions.map {
                ["challenge": Base64URL.encode($0.challenge), "response": try json($0.response)]
            },
            "registrations_none": try noneRegistrations.map {
                ["challenge": Base64URL.encode($0.challenge), "response": try json($0.response)]
            },
            "registrations_packed": try packedRegistrations.map {
                ["challenge": Base64URL.encode($0.challenge), "response": try json($0.response)]
            },
        ]
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    }
}
