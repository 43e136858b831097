import Crypto
import Foundation
import Testing
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// §7.1 steps 13–20 and 25–27: the authenticator data of a registration and the record.
@Suite("Registration authenticator data (§7.1 steps 13–20, 25–27)")
struct RegistrationAuthenticatorDataTests {
    @Test("step 13: an attestation object that is not CBOR is refused")
    func attestationObjectNotCBOR() async {
        var factory = RegistrationFactory.es256()
        factory.attestationObjectOverride = Array("not cbor at all".utf8)
        await expectRegistrationFailure(.malformedResponse, step: "7.1 step 13", factory)
    }

    @Test("step 13: authenticator data without attested credential data is refused")
    func noAttestedCredentialData() async throws {
        var factory = RegistrationFactory.es256()
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(Fixture.rpID.utf8))), flags: [.userPresent], signCount: 0)
        factory.attestationObjectOverride =
            AttestationObject(format: "none", statement: CBORMap(), authenticatorData: authData).encoded
        await expectRegistrationFailure(.malformedResponse, step: "7.1 step 13", factory)
    }

    @Test("step 14: authenticator data scoped to another RP ID is refused")
    func wrongRPID() async {
        var factory = RegistrationFactory.es256()
        factory.rpID = "evil.example"
        await expectRegistrationFailure(.rpIDMismatch, step: "7.1 step 14", factory)
    }

    @Test("step 15: a registration without user presence is refused unless conditional create allows it")
    func userNotPresent() async throws {
        var factory = RegistrationFactory.es256()
        factory.flags = [.userVerified]
        await expectRegistrationFailure(.userNotPresent, step: "7.1 step 15", factory)

        let conditional = Fixture.policy { $0.requireUserPresence = false }
        let result = try await RegistrationVerifier(policy: conditional).verify(factory)
        #expect(!result.authenticatorData.flags.isUserPresent)
    }

    @Test("step 16: without UV a registration fails when verification is required, by policy or per call")
    func userNotVerified() async throws {
        var factory = RegistrationFactory.es256()
        factory.flags = [.userPresent]
        let requiring = Fixture.policy { $0.userVerification = .required }
        await expectRegistrationFailure(.userNotVerified, step: "7.1 step 16", policy: requiring, factory)

        await expectWebAuthnError(.userNotVerified, step: "7.1 step 16") {
            _ = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory, userVerification: .required)
        }
        let preferred = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory)
        #expect(!preferred.record.uvInitialized)
    }

    @Test("step 17: BS set without BE is refused")
    func backupStateWithoutEligibility() async {
        var factory = RegistrationFactory.es256()
        factory.flags = [.userPresent, .userVerified, .backupState]
        await expectRegistrationFailure(.invalidBackupFlags, step: "7.1 step 17", factory)
    }

    @Test("step 18: a synced credential is refused when only single-device ones are accepted")
    func singleDevicePolicy() async throws {
        var factory = RegistrationFactory.es256()
        factory.flags = [.userPresent, .userVerified, .backupEligible]
        let singleDevice = Fixture.policy { $0.backup = .singleDeviceOnly }
        await expectRegistrationFailure(.backupStateNotAllowed, step: "7.1 step 18", policy: singleDevice, factory)

        factory.flags = [.userPresent, .userVerified]
        let deviceBound = try await RegistrationVerifier(policy: singleDevice).verify(factory)
        #expect(!deviceBound.record.backupEligible)
    }

    @Test("step 20: a key whose algorithm was not offered is refused")
    func algorithmNotOffered() async throws {
        let factory = RegistrationFactory(key: try TestKey.make(.es384))
        let es256Only = Fixture.policy { $0.algorithms = [.es256] }
        await expectRegistrationFailure(.algorithmNotAllowed, step: "7.1 step 20", policy: es256Only, factory)
    }

    @Test("step 25: a credential id of 1024 bytes is refused, 1023 bytes are accepted")
    func credentialIDLength() async throws {
        var factory = RegistrationFactory.es256()
        factory.credentialID = Fixture.credentialID(count: 1024)
        await expectRegistrationFailure(.credentialIDTooLong, step: "7.1 step 25", factory)

        factory.credentialID = Fixture.credentialID(count: 1023)
        let result = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory)
        #expect(result.record.id.count == 1023)
    }

    @Test("step 26: a credential id that is already registered is refused")
    func alreadyRegistered() async throws {
        let factory = RegistrationFactory.es256()
        let existing = factory.credentialID
        await expectWebAuthnError(.credentialAlreadyRegistered, step: "7.1 step 26") {
            _ = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory) { $0 == existing }
        }
        var asked: [[UInt8]] = []
        _ = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory) {
            asked.append($0)
            return false
        }
        #expect(asked == [existing])
    }

    @Test("rawId must name the credential in the authenticator data")
    func rawIDMismatch() async throws {
        var response = try RegistrationFactory.es256().make()
        response = RegistrationResponseJSON(rawId: Base64URLBytes(Fixture.credentialID()), response: response.response)
        await expectWebAuthnError(.credentialMismatch, step: nil) {
            _ = try await RegistrationVerifier(policy: Fixture.policy()).verify(
                response, expectedChallenge: Fixture.challenge, at: Fixture.now)
        }
    }

    @Test("a credential whose type is not public-key is refused")
    func notPublicKey() async throws {
        var response = try RegistrationFactory.es256().make()
        response.type = "password"
        await expectWebAuthnError(.credentialMismatch, step: nil) {
            _ = try await RegistrationVerifier(policy: Fixture.policy()).verify(
                response, expectedChallenge: Fixture.challenge, at: Fixture.now)
        }
    }

    @Test("step 27: the record carries key, counter, user, UV, transports, backup flags and AAGUID")
    func record() async throws {
        var factory = RegistrationFactory.es256()
        factory.flags = [.userPresent, .userVerified, .backupEligible, .backupState]
        factory.signCount = 41
        factory.extensions = CBORMap(["credProtect": 2])
        let result = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory)
        let record = result.record
        #expect(record.id == factory.credentialID)
        #expect(record.publicKey == (try factory.key.coseKey))
        #expect(record.signCount == 41)
        #expect(record.userHandle == Fixture.userHandle)
        #expect(record.uvInitialized)
        #expect(record.transports == [.internal, .hybrid])
        #expect(record.backupEligible && record.backupState)
        #expect(record.aaguid == Fixture.aaguid)
        #expect(result.format == "none")
        #expect(result.attestation.trust == AttestationTrust.none)
        #expect(result.authenticatorData.extensions?["credProtect"]?.int64Value == 2)
    }

    @Test("an AAGUID reads as the lowercase UUID string Foundation writes; other lengths as hex")
    func aaguidString() {
        for seed in 0..<500 {
            let bytes = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ seed &* 101 &+ ($0 ^ seed)) }
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            #expect(AAGUID.string(bytes) == uuid.uuidString.lowercased())
        }
        #expect(AAGUID.string([0xAB, 0x01]) == "ab01")
    }
}
