import Foundation
import Testing
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Real registrations from webauthn-rs's core tests, with UMFA's verdict and, where it differs
/// from webauthn-rs's, the reason (`note` in the file).
@Suite("webauthn-rs registrations")
struct WebauthnRSRegistrationTests {
    struct File: Decodable {
        struct Vector: Decodable {
            struct Expected: Decodable {
                let valid: Bool
                let trust: String?
                let error: String?
                let step: String?
            }

            let name: String
            let fmt: String
            let rpID: String
            let origin: String
            let challenge: String
            let response: JSONValue
            let algorithms: [Int]?
            let verificationTime: String?
            let expected: Expected

            enum CodingKeys: String, CodingKey {
                case name, fmt, origin, challenge, response, algorithms, expected
                case rpID = "rp_id"
                case verificationTime = "verification_time"
            }
        }

        let vectors: [Vector]

        static func load() throws -> File { try VectorLoader.load(File.self, from: "webauthn-rs-registrations") }
    }

    func verify(_ vector: File.Vector, response: RegistrationResponseJSON? = nil) async throws -> VerifiedRegistration {
        var policy = RelyingPartyPolicy(
            rpID: vector.rpID, origins: OriginPolicy(allowed: [vector.origin]), trustAnchors: .wellKnown())
        if let algorithms = vector.algorithms { policy.algorithms = algorithms.map(COSEAlgorithm.init) }
        return try await RegistrationVerifier(policy: policy).verify(
            try response ?? vector.response.decoded(as: RegistrationResponseJSON.self),
            expectedChallenge: try #require(Base64URL.decode(vector.challenge)),
            at: try VectorTime.parse(vector.verificationTime) ?? Fixture.now)
    }

    @Test("each registration gets UMFA's documented verdict", arguments: try File.load().vectors.map(\.name))
    func vector(name: String) async throws {
        let vector = try #require(try File.load().vectors.first { $0.name == name })
        guard vector.expected.valid else {
            let error = await #expect(throws: WebAuthnError.self) { _ = try await verify(vector) }
            #expect(error?.code.rawValue == vector.expected.error, "\(String(describing: error))")
            #expect(error?.step == vector.expected.step)
            return
        }
        let result = try await verify(vector)
        #expect(result.format == vector.fmt)
        #expect(result.attestation.trust.label == vector.expected.trust, "\(result.attestation.trust)")
    }

    @Test("the android-key statement whose rawId was altered verifies once rawId is the credential id")
    func androidKeyWithRightRawID() async throws {
        let vector = try #require(try File.load().vectors.first { $0.name == "test_google_android_key" })
        var response = try vector.response.decoded(as: RegistrationResponseJSON.self)
        let object = try AttestationObject(bytes: response.response.attestationObject.bytes)
        let id = try #require(object.authenticatorData.attestedCredentialData?.credentialID)
        response = RegistrationResponseJSON(rawId: Base64URLBytes(id), response: response.response)
        let result = try await verify(vector, response: response)
        #expect(result.format == "android-key" && result.attestation.type == .basic)
        #expect(result.attestation.trust.label == "untrusted")  // a software attestation root
    }
}
