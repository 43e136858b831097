import Testing
import UMFAWebAuthn

/// §7.2 steps 5–6: which credential, and whose.
@Suite("Authentication credential and user (§7.2 steps 5–6)")
struct AuthenticationOwnershipTests {
    let factory = AssertionFactory.es256()

    @Test("step 5: a credential outside allowCredentials is refused")
    func notInAllowCredentials() async throws {
        let record = try factory.record()
        await expectWebAuthnError(.credentialNotAllowed, step: "7.2 step 5") {
            _ = try AuthenticationVerifier(policy: Fixture.policy()).verify(
                factory, record: record, allowCredentials: [Fixture.credentialID(), Fixture.credentialID()])
        }
        let allowed = try AuthenticationVerifier(policy: Fixture.policy()).verify(
            factory, record: record, allowCredentials: [Fixture.credentialID(), factory.credentialID])
        #expect(allowed.record.id == factory.credentialID)
    }

    @Test("step 6: another user's credential is refused for the identified user")
    func anotherUsersCredential() async throws {
        var assertion = factory
        assertion.userHandle = nil
        let bobsRecord = try factory.record(userHandle: Fixture.otherUserHandle)
        await expectAuthenticationFailure(
            .userHandleMismatch, step: "7.2 step 6", record: bobsRecord, identifiedUserHandle: Fixture.userHandle,
            assertion)
    }

    @Test("step 6: a userHandle other than the identified user's is refused")
    func userHandleMismatch() async throws {
        var assertion = factory
        assertion.userHandle = Fixture.otherUserHandle
        await expectAuthenticationFailure(
            .userHandleMismatch, step: "7.2 step 6", record: try factory.record(), assertion)
    }

    @Test("step 6: a record for another credential id is refused")
    func recordForAnotherCredential() async throws {
        var record = try factory.record()
        record.id = Fixture.credentialID()
        await expectAuthenticationFailure(.userHandleMismatch, step: "7.2 step 6", record: record, factory)
    }

    @Test("step 6: without a prior identification the userHandle is required")
    func missingUserHandle() async throws {
        var assertion = factory
        assertion.userHandle = nil
        await expectAuthenticationFailure(
            .userHandleMismatch, step: "7.2 step 6", record: try factory.record(), identifiedUserHandle: nil,
            assertion)
    }

    @Test("step 6: an empty userHandle (as Safari sends it) counts as absent")
    func emptyUserHandle() async throws {
        var assertion = factory
        assertion.userHandle = []
        let record = try factory.record()
        await expectAuthenticationFailure(
            .userHandleMismatch, step: "7.2 step 6", record: record, identifiedUserHandle: nil, assertion)
        let identified = try AuthenticationVerifier(policy: Fixture.policy()).verify(
            assertion, record: record, identifiedUserHandle: Fixture.userHandle)
        #expect(identified.record.userHandle == Fixture.userHandle)
    }

    @Test("step 6: a discoverable credential's userHandle identifies its owner")
    func discoverable() async throws {
        let result = try AuthenticationVerifier(policy: Fixture.policy()).verify(
            factory, record: try factory.record(), identifiedUserHandle: nil)
        #expect(result.record.userHandle == Fixture.userHandle)

        var bobs = factory
        bobs.userHandle = Fixture.otherUserHandle
        await expectAuthenticationFailure(
            .userHandleMismatch, step: "7.2 step 6", record: try factory.record(), identifiedUserHandle: nil, bobs)
    }
}
