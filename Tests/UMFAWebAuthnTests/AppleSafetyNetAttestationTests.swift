import Crypto
import Foundation
import Testing
import UMFAWebAuthn

/// §8.8 `apple` and §8.5 `android-safetynet`, each requirement broken once.
@Suite("apple and android-safetynet attestation (§8.8, §8.5)")
struct AppleSafetyNetAttestationTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    func apple(_ adjust: (inout AppleStatement) -> Void = { _ in }) -> RegistrationFactory {
        var statement = AppleStatement(pki: pki)
        adjust(&statement)
        return RegistrationFactory.es256(statement.attestation)
    }

    func safetyNet(_ adjust: (inout SafetyNetStatement) -> Void = { _ in }) -> RegistrationFactory {
        var statement = SafetyNetStatement(pki: pki)
        adjust(&statement)
        return RegistrationFactory.es256(statement.attestation)
    }

    func refused(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation, _ factory: RegistrationFactory)
        async
    {
        let error = await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22", sourceLocation: sourceLocation, factory)
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test("apple: a genuine statement verifies as AnonCA, trusted by the issuing root")
    func appleGenuine() async throws {
        let policy = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(rootsByFormat: ["apple": [pki.root]])
            $0.attestation = .selfOrTrusted
        }
        let result = try await RegistrationVerifier(policy: policy).verify(apple())
        #expect(result.attestation.type == .anonCA && result.attestation.trust.label == "trusted")
        // Apple's root proves an Apple device, not the AAGUID: only roots named for it do.
        #expect(!result.attestation.aaguidProven)
        var trusted = policy
        trusted.attestation = .trustedOnly
        await expectRegistrationFailure(.untrustedAttestation, step: "7.1 step 24", policy: trusted, apple())
        trusted.trustAnchors = AttestationTrustAnchors(rootsByAAGUID: [AAGUID.string(Fixture.aaguid): [pki.root]])
        let proven = try await RegistrationVerifier(policy: trusted).verify(apple())
        #expect(proven.attestation.aaguidProof == .modelRoots)
    }

    @Test("apple step 1: x5c is required")
    func appleX5C() async {
        var factory = apple()
        factory.editStatement = { $0 = .init() }
        await refused("x5c is missing", factory)
    }
    @Test("apple step 3: the nonce extension is required")
    func appleNoExtension() async { await refused("no nonce extension", apple { $0.includeExtension = false }) }
    @Test("apple step 3: the nonce must be SHA-256 of authenticatorData ‖ clientDataHash")
    func appleNonce() async { await refused("nonce", apple { $0.nonce = Array(repeating: 3, count: 32) }) }
    @Test("apple step 3: the nonce extension must be SEQUENCE { [1] OCTET STRING }")
    func appleMalformed() async { await refused("SEQUENCE", apple { $0.malformedExtension = true }) }
    @Test("apple step 4: the certificate must hold the credential key")
    func appleKey() async { await refused("credential public key", apple { $0.certifyOtherKey = true }) }

    @Test("safetynet: a genuine response verifies as Basic, trusted by the issuing root")
    func safetyNetGenuine() async throws {
        let policy = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(rootsByFormat: ["android-safetynet": [pki.root]])
            $0.attestation = .selfOrTrusted
        }
        let result = try await RegistrationVerifier(policy: policy).verify(safetyNet())
        #expect(result.attestation.type == .basic && result.attestation.trust.label == "trusted")
        #expect(!result.attestation.aaguidProven)
        var trusted = policy
        trusted.attestation = .trustedOnly
        await expectRegistrationFailure(.untrustedAttestation, step: "7.1 step 24", policy: trusted, safetyNet())
        trusted.trustAnchors = AttestationTrustAnchors(rootsByAAGUID: [AAGUID.string(Fixture.aaguid): [pki.root]])
        let proven = try await RegistrationVerifier(policy: trusted).verify(safetyNet())
        #expect(proven.attestation.aaguidProof == .modelRoots)
    }

    @Test("safetynet step 1: ver must be a non-empty text string")
    func safetyNetVersion() async { await refused("ver", safetyNet { $0.version = "" }) }
    @Test("safetynet step 2: the JWS must carry an x5c chain")
    func safetyNetX5C() async { await refused("x5c", safetyNet { $0.omitX5C = true }) }
    @Test("safetynet step 2: the JWS signature must verify")
    func safetyNetSignature() async { await refused("signature", safetyNet { $0.corruptSignature = true }) }
    @Test("safetynet step 2: the signer must be attest.android.com")
    func safetyNetHostname() async { await refused("attest.android.com", safetyNet { $0.hostname = "evil.example" }) }
    @Test("safetynet step 3: nonce must be the hash of authenticatorData ‖ clientDataHash")
    func safetyNetNonce() async { await refused("nonce", safetyNet { $0.nonce = "AAAA" }) }
    @Test("safetynet step 4: ctsProfileMatch must be true", arguments: [false, nil] as [Bool?])
    func safetyNetCTS(value: Bool?) async { await refused("ctsProfileMatch", safetyNet { $0.ctsProfileMatch = value }) }
    @Test("safetynet step 4: timestampMs must be at most a minute old and not in the future")
    func safetyNetTimestamp() async {
        await refused("older", safetyNet { $0.timestamp = Fixture.now.addingTimeInterval(-61) })
        await refused("future", safetyNet { $0.timestamp = Fixture.now.addingTimeInterval(11) })
    }
}
