import Crypto
import Foundation
import Testing
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Fixtures shared by the authenticator tests.
enum Fixture {
    static let rpID = "example.org"
    static let origin = "https://example.org"
    static let user = UserEntity(id: [1, 2, 3, 4], name: "alice", displayName: "Alice")

    static func policy(userVerification: UserVerificationRequirement = .preferred) -> RelyingPartyPolicy {
        RelyingPartyPolicy(rpID: rpID, origins: OriginPolicy(allowed: [origin]), userVerification: userVerification)
    }

    static func challenge(_ seed: UInt8) -> [UInt8] { (0..<32).map { UInt8($0) &+ seed } }

    static func creationOptions(
        challenge: [UInt8] = challenge(1), exclude: [[UInt8]] = [], residentKey: ResidentKeyRequirement? = nil,
        userVerification: UserVerificationRequirement? = nil, attestation: AttestationConveyancePreference? = nil,
        algorithms: [COSEAlgorithm] = [.es256, .rs256]
    ) -> CreationOptionsJSON {
        CreationOptionsJSON(
            rp: RelyingPartyEntity(id: rpID, name: "Example"), user: user, challenge: Base64URLBytes(challenge),
            pubKeyCredParams: algorithms.map { CredentialParameters(alg: $0) },
            excludeCredentials: exclude.map { CredentialDescriptor(id: Base64URLBytes($0)) },
            authenticatorSelection: AuthenticatorSelectionCriteria(
                residentKey: residentKey, userVerification: userVerification),
            attestation: attestation)
    }

    static func requestOptions(
        challenge: [UInt8] = challenge(2), allow: [[UInt8]] = [], userVerification: UserVerificationRequirement? = nil
    ) -> RequestOptionsJSON {
        RequestOptionsJSON(
            challenge: Base64URLBytes(challenge), rpId: rpID,
            allowCredentials: allow.map { CredentialDescriptor(id: Base64URLBytes($0)) },
            userVerification: userVerification)
    }

    static func client(store: some CredentialStore = InMemoryCredentialStore(), origin: String = origin)
        -> WebAuthnClient
    {
        WebAuthnClient(origin: origin, authenticator: SoftwareAuthenticator(store: store))
    }

    /// Registers through the client and verifies with the relying-party core.
    static func register(
        _ client: WebAuthnClient, options: CreationOptionsJSON = creationOptions(), userVerified: Bool = false,
        policy: RelyingPartyPolicy = policy()
    ) async throws -> VerifiedRegistration {
        let response = try client.create(options, userVerified: userVerified)
        return try await RegistrationVerifier(policy: policy).verify(
            response, expectedChallenge: options.challenge.bytes, userHandle: user.id.bytes)
    }
}

@Suite("Software authenticator: make credential")
struct MakeCredentialTests {
    @Test("a none attestation verifies with the relying-party core and records the key")
    func noneAttestationRoundTrip() async throws {
        let result = try await Fixture.register(Fixture.client())
        #expect(result.format == "none")
        #expect(result.attestation.trust == .none)
        #expect(result.record.signCount == 0)
        #expect(result.record.aaguid == SoftwareAuthenticator.defaultAAGUID)
        #expect(result.record.id.count == 32)
        #expect(result.record.publicKey.algorithm == .es256)
    }

    @Test("asking for attestation yields a verifying packed self attestation")
    func packedSelfAttestation() async throws {
        let result = try await Fixture.register(
            Fixture.client(), options: Fixture.creationOptions(attestation: .direct))
        #expect(result.format == "packed")
        #expect(result.attestation.type == .self)
        #expect(result.attestation.trust == .selfAttested)
    }

    @Test("UV is set only when the caller verified the user")
    func userVerificationFlag() async throws {
        let verified = try await Fixture.register(Fixture.client(), userVerified: true)
        #expect(verified.authenticatorData.flags.isUserVerified)
        #expect(verified.record.uvInitialized)
        let unverified = try await Fixture.register(Fixture.client(), userVerified: false)
        #expect(!unverified.authenticatorData.flags.isUserVerified)
        #expect(unverified.authenticatorData.flags.isUserPresent)
    }

    @Test("required user verification without a verified user is refused")
    func requiredUserVerification() throws {
        #expect(throws: AuthenticatorError(.userVerificationFailed, "")) {
            try Fixture.client().create(Fixture.creationOptions(userVerification: .required), userVerified: false)
        }
    }

    @Test("a credential listed in excludeCredentials is reported as invalid state and nothing is added")
    func excludeCredentials() throws {
        let store = InMemoryCredentialStore()
        let client = Fixture.client(store: store)
        let first = try client.create(Fixture.creationOptions(), userVerified: false)
        #expect(throws: AuthenticatorError(.invalidState, "")) {
            try client.create(Fixture.creationOptions(exclude: [first.rawId.bytes]), userVerified: false)
        }
        #expect(store.credentials(rpID: Fixture.rpID).count == 1)
        // An unrelated id in the exclude list does not block a second credential.
        _ = try client.create(Fixture.creationOptions(exclude: [[9, 9, 9]]), userVerified: false)
        #expect(store.credentials(rpID: Fixture.rpID).count == 2)
    }

    @Test("options without ES256 are not supported")
    func algorithmNotSupported() throws {
        #expect(throws: AuthenticatorError(.notSupported, "")) {
            try Fixture.client().create(Fixture.creationOptions(algorithms: [.rs256, .edDSA]), userVerified: false)
        }
    }
}
