import Foundation
import Testing
import UMFAEncoding
import UMFAWebAuthn
import X509

/// The WebAuthn Level 3 specification's test vectors, registration then authentication.
@Suite("W3C WebAuthn test vectors")
struct W3CVectorTests {
    let file: W3CVectorFile

    init() throws {
        file = try W3CVectorFile.load()
    }

    /// The vectors' relying party; cross-origin embedding by the top origin is expected only
    /// where the vector's client data says the ceremony ran in an iframe.
    func policy(for vector: W3CVector, _ adjust: (inout RelyingPartyPolicy) -> Void = { _ in }) throws
        -> RelyingPartyPolicy
    {
        let clientData = try CollectedClientData(bytes: vector.registration.clientDataJSON.bytes)
        let embedded = clientData.crossOrigin == true || clientData.topOrigin != nil
        var policy = RelyingPartyPolicy(
            rpID: file.rpID,
            origins: OriginPolicy(
                allowed: [file.origin], allowCrossOrigin: embedded, allowedTopOrigins: embedded ? [file.topOrigin] : [])
        )
        // The specification's TPM vector names the unregistered manufacturer id:00000000.
        policy.attestationFormats.register(TPMAttestation(requireRegisteredManufacturer: false))
        // Its android-key vector has empty authorization lists (no purpose, no origin).
        policy.attestationFormats.register(AndroidKeyAttestation(requireAuthorizations: false))
        adjust(&policy)
        return policy
    }

    func register(_ vector: W3CVector, policy: RelyingPartyPolicy) async throws -> VerifiedRegistration {
        try await RegistrationVerifier(policy: policy).verify(
            vector.registrationResponse, expectedChallenge: vector.registration.challenge.bytes,
            userHandle: Fixture.userHandle, at: Fixture.now)
    }

    @Test("every vector in the file has an expectation")
    func coverage() {
        #expect(Set(file.vectors.map(\.id)) == Set(W3CExpectation.byVector.keys))
        #expect(file.rpID == "example.org" && file.origin == "https://example.org")
    }

    @Test("registration, then authentication with the registered key", arguments: W3CExpectation.byVector.keys.sorted())
    func vector(id: String) async throws {
        let vector = try file.vector(id)
        let expectation = try #require(W3CExpectation.byVector[id])
        let vectorPolicy = try policy(for: vector)
        guard case .registers(let format, let type, let algorithm) = expectation else {
            if case .refused(let code, let step) = expectation {
                await expectWebAuthnError(code, step: step) { _ = try await register(vector, policy: vectorPolicy) }
            }
            return
        }
        let registered = try await register(vector, policy: vectorPolicy)
        #expect(registered.format == format)
        #expect(registered.attestation.type == type)
        #expect(registered.attestation.trust.label == (type == .none ? "none" : type == .self ? "self" : "untrusted"))
        #expect(registered.record.id == vector.registration.credentialID.bytes)
        // fido-u2f has the zero AAGUID, whatever authenticator data claims.
        let aaguid: [UInt8]? = format == "fido-u2f" ? AAGUID.zero : Hex.decode(vector.registration.aaguidHex)
        #expect(registered.record.aaguid == aaguid)
        #expect(registered.record.publicKey.algorithm == algorithm)
        #expect(registered.record.signCount == 0)

        let verifier = AuthenticationVerifier(policy: vectorPolicy)
        let authenticated = try verifier.verify(
            vector.authenticationResponse(), expectedChallenge: vector.authentication.challenge.bytes,
            credential: registered.record, allowCredentials: [registered.record.id],
            identifiedUserHandle: Fixture.userHandle)
        #expect(!authenticated.cloneWarning)
        #expect(authenticated.record.signCount == 0)

        var forged = vector.authentication.signature.bytes
        forged[forged.count - 1] ^= 0x01
        await expectWebAuthnError(.invalidSignature, step: "7.2 step 21") {
            _ = try verifier.verify(
                vector.authenticationResponse(signature: Base64URLBytes(forged)),
                expectedChallenge: vector.authentication.challenge.bytes, credential: registered.record,
                identifiedUserHandle: Fixture.userHandle)
        }
    }

    @Test(
        "x5c vectors are trusted once the vectors' CA is a root for their AAGUID, also under trustedOnly",
        arguments: [
            "packed-es256", "packed-es384", "packed-es512", "packed-rs256", "packed-eddsa", "fido-u2f-es256",
            "tpm-es256",
            "android-key-es256", "apple-es256",
        ])
    func trustedWithRoot(id: String) async throws {
        let root = try Certificate(derEncoded: try #require(Hex.decode(file.attestationCACertificateHex)))
        let vector = try file.vector(id)
        let aaguid = AAGUID.string(try #require(Hex.decode(vector.registration.aaguidHex)))
        let trusting = try policy(for: vector) {
            // Any format's root for fido-u2f (zero AAGUID), the model's root for the others.
            $0.trustAnchors = AttestationTrustAnchors(roots: [root], rootsByAAGUID: [aaguid: [root]])
            $0.attestation = .trustedOnly
        }
        let registered = try await register(vector, policy: trusting)
        guard case .trusted(let anchor) = registered.attestation.trust else {
            Issue.record("\(id): \(registered.attestation.trust)")
            return
        }
        #expect(anchor == String(describing: root.subject))
        #expect(!registered.attestation.trustPath.isEmpty)

        let untrusted = try policy(for: vector) { $0.attestation = .trustedOnly }
        await expectWebAuthnError(.untrustedAttestation, step: "7.1 step 24") {
            _ = try await register(vector, policy: untrusted)
        }
    }

    @Test("the TPM vector's unregistered manufacturer id:00000000 is refused by default")
    func tpmManufacturerRefused() async throws {
        let vector = try file.vector("tpm-es256")
        let strict = try policy(for: vector) { $0.attestationFormats = .standard }
        let error = await expectWebAuthnError(.invalidAttestation, step: "7.1 step 22") {
            _ = try await register(vector, policy: strict)
        }
        #expect(error?.message.contains("id:00000000") == true)
    }

    @Test("the android-key vector's empty authorization lists are refused by default")
    func androidKeyAuthorizationsRefused() async throws {
        let vector = try file.vector("android-key-es256")
        let strict = try policy(for: vector) { $0.attestationFormats = .standard }
        let error = await expectWebAuthnError(.invalidAttestation, step: "7.1 step 22") {
            _ = try await register(vector, policy: strict)
        }
        #expect(error?.message.contains("KM_ORIGIN_GENERATED") == true)
    }

    @Test("the cross-origin and top-origin vectors are refused when embedding is not expected")
    func embeddingRefused() async throws {
        let strict = RelyingPartyPolicy(rpID: file.rpID, origins: OriginPolicy(allowed: [file.origin]))
        await expectWebAuthnError(.crossOriginNotAllowed, step: "7.1 step 10") {
            _ = try await register(try file.vector("none-es256-crossOrigin"), policy: strict)
        }
        await expectWebAuthnError(.crossOriginNotAllowed, step: "7.1 step 10") {
            _ = try await register(try file.vector("none-es256-topOrigin"), policy: strict)
        }
    }
}
