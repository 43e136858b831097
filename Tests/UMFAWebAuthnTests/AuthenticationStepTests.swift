import Crypto
import Testing
import UMFAWebAuthn

/// §7.2 steps 8–21: client data, authenticator data and the signature of an assertion.
@Suite("Authentication steps (§7.2 steps 8–21)")
struct AuthenticationStepTests {
    let factory = AssertionFactory.es256()

    func expectFailure(
        _ code: WebAuthnError.Code, step: String, policy: RelyingPartyPolicy = Fixture.policy(),
        record: CredentialRecord? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ edit: (inout AssertionFactory) -> Void
    ) async throws {
        var assertion = factory
        edit(&assertion)
        await expectAuthenticationFailure(
            code, step: step, policy: policy, record: try record ?? factory.record(), sourceLocation: sourceLocation,
            assertion)
    }

    @Test("step 8: client data that is not UTF-8 is refused")
    func notUTF8() async throws {
        try await expectFailure(.malformedResponse, step: "7.2 step 8") {
            $0.clientData.rawOverride = [0x7b, 0xc3, 0x28, 0x7d]
        }
    }

    @Test("step 9: client data that is not JSON is refused")
    func notJSON() async throws {
        try await expectFailure(.malformedResponse, step: "7.2 step 9") { $0.clientData.rawOverride = Array("{".utf8) }
    }

    @Test("step 10: a registration's client data type is refused")
    func wrongType() async throws {
        try await expectFailure(.wrongCeremonyType, step: "7.2 step 10") {
            $0.clientData.type = CollectedClientData.createType
        }
    }

    @Test("step 11: a challenge other than the one issued is refused")
    func wrongChallenge() async throws {
        try await expectFailure(.challengeMismatch, step: "7.2 step 11") {
            $0.challenge = Array(repeating: 9, count: 32)
        }
    }

    @Test("step 12: an origin the relying party does not list is refused")
    func wrongOrigin() async throws {
        try await expectFailure(.originNotAllowed, step: "7.2 step 12") {
            $0.clientData.origin = "https://evil.example"
        }
    }

    @Test("step 13: a cross-origin iframe is refused unless expected")
    func crossOrigin() async throws {
        try await expectFailure(.crossOriginNotAllowed, step: "7.2 step 13") { $0.clientData.crossOrigin = true }
    }

    @Test("step 14: a top origin the relying party does not expect is refused")
    func wrongTopOrigin() async throws {
        let policy = Fixture.policy {
            $0.origins.allowCrossOrigin = true
            $0.origins.allowedTopOrigins = [Fixture.topOrigin]
        }
        try await expectFailure(.topOriginNotAllowed, step: "7.2 step 14", policy: policy) {
            $0.clientData.crossOrigin = true
            $0.clientData.topOrigin = "https://evil.example"
        }
    }

    @Test("step 15: authenticator data scoped to another RP ID is refused")
    func wrongRPID() async throws {
        try await expectFailure(.rpIDMismatch, step: "7.2 step 15") { $0.rpID = "example.com" }
    }

    @Test("step 16: an assertion without user presence is refused, even where registration may skip it")
    func userNotPresent() async throws {
        try await expectFailure(.userNotPresent, step: "7.2 step 16") { $0.flags = [.userVerified] }
        let conditional = Fixture.policy { $0.requireUserPresence = false }
        try await expectFailure(.userNotPresent, step: "7.2 step 16", policy: conditional) { $0.flags = [] }
    }

    @Test("step 17: without UV an assertion fails when verification is required")
    func userNotVerified() async throws {
        let requiring = Fixture.policy { $0.userVerification = .required }
        try await expectFailure(.userNotVerified, step: "7.2 step 17", policy: requiring) { $0.flags = [.userPresent] }
        var assertion = factory
        assertion.flags = [.userPresent]
        await expectWebAuthnError(.userNotVerified, step: "7.2 step 17") {
            _ = try AuthenticationVerifier(policy: Fixture.policy()).verify(
                assertion, record: try factory.record(), userVerification: .required)
        }
    }

    @Test("step 18: BS set without BE is refused")
    func backupStateWithoutEligibility() async throws {
        try await expectFailure(.invalidBackupFlags, step: "7.2 step 18") {
            $0.flags = [.userPresent, .userVerified, .backupState]
        }
    }

    @Test("step 19: BE that changed since registration is refused, either way")
    func backupEligibilityChanged() async throws {
        try await expectFailure(
            .invalidBackupFlags, step: "7.2 step 19", record: try factory.record(backupEligible: true)
        ) {
            $0.flags = [.userPresent, .userVerified]
        }
        try await expectFailure(.invalidBackupFlags, step: "7.2 step 19") {
            $0.flags = [.userPresent, .userVerified, .backupEligible]
        }
    }

    @Test("step 21: a signature by another key is refused")
    func signedByAnotherKey() async throws {
        try await expectFailure(.invalidSignature, step: "7.2 step 21") {
            $0.signingKey = .p256(P256.Signing.PrivateKey())
        }
    }

    @Test("step 21: client data changed after signing is refused")
    func clientDataChangedAfterSigning() async throws {
        var changed = factory.clientData
        changed.crossOrigin = nil
        let bytes = changed.bytes
        try await expectFailure(.invalidSignature, step: "7.2 step 21") { $0.clientDataAfterSigning = bytes }
    }

    @Test("native-app origins and BOM-prefixed client data are accepted")
    func nativeOriginWithBOM() async throws {
        var assertion = factory
        assertion.clientData.origin = "android:apk-key-hash:zY8xJX3tA6hTgyQbvW5s-2cBbTvD8N3fEC9XdS6JBqc"
        assertion.clientData.byteOrderMark = true
        let policy = Fixture.policy(origins: [assertion.clientData.origin])
        let result = try AuthenticationVerifier(policy: policy).verify(assertion, record: try factory.record())
        #expect(result.clientData.origin == assertion.clientData.origin)
        #expect(result.userVerified)
    }
}
