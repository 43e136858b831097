import Testing
import UMFAWebAuthn

/// §7.2 steps 22 and 24: the signature counter and the updated credential record.
@Suite("Sign counter and record update (§7.2 steps 22, 24)")
struct SignCountTests {
    let factory = AssertionFactory.es256()

    func assertion(signCount: UInt32) -> AssertionFactory {
        var assertion = factory
        assertion.signCount = signCount
        return assertion
    }

    @Test("step 22: a counter that did not grow is refused by default", arguments: [UInt32(10), 9, 0])
    func regressionRefused(signCount: UInt32) async throws {
        await expectAuthenticationFailure(
            .signCountRegression, step: "7.2 step 22", record: try factory.record(signCount: 10),
            assertion(signCount: signCount))
    }

    @Test("step 22: with .flagRegression a regression passes with a clone warning")
    func regressionFlagged() throws {
        let policy = Fixture.policy { $0.signCount = .flagRegression }
        let result = try AuthenticationVerifier(policy: policy).verify(
            assertion(signCount: 4), record: try factory.record(signCount: 10))
        #expect(result.cloneWarning)
        #expect(result.record.signCount == 10, "the highest counter seen is kept")
    }

    @Test("step 22: counters that stay 0 on both sides (synced passkeys) are accepted every time")
    func bothZero() throws {
        var record = try factory.record(signCount: 0)
        for _ in 0..<3 {
            let result = try AuthenticationVerifier(policy: Fixture.policy()).verify(
                assertion(signCount: 0), record: record)
            #expect(!result.cloneWarning)
            #expect(result.record.signCount == 0)
            record = result.record
        }
    }

    @Test("step 22: a growing counter is accepted and stored")
    func growing() throws {
        let result = try AuthenticationVerifier(policy: Fixture.policy()).verify(
            assertion(signCount: 11), record: try factory.record(signCount: 10))
        #expect(!result.cloneWarning)
        #expect(result.record.signCount == 11)
    }

    @Test("step 22: an authenticator that starts counting after registration at 0 is accepted")
    func startsCounting() throws {
        let result = try AuthenticationVerifier(policy: Fixture.policy()).verify(
            assertion(signCount: 1), record: try factory.record(signCount: 0))
        #expect(result.record.signCount == 1)
    }

    @Test("step 24: the record takes the new backup state and remembers the first UV")
    func recordUpdate() throws {
        var assertion = assertion(signCount: 5)
        assertion.flags = [.userPresent, .userVerified, .backupEligible, .backupState]
        let record = try factory.record(signCount: 2, backupEligible: true, backupState: false, uvInitialized: false)
        let updated = try AuthenticationVerifier(policy: Fixture.policy()).verify(assertion, record: record).record
        #expect(updated.signCount == 5)
        #expect(updated.backupState)
        #expect(updated.backupEligible)
        #expect(updated.uvInitialized)
        #expect(updated.id == record.id && updated.publicKey == record.publicKey)

        assertion.signCount = 6
        assertion.flags = [.userPresent, .backupEligible]
        let later = try AuthenticationVerifier(policy: Fixture.policy()).verify(assertion, record: updated).record
        #expect(later.uvInitialized, "uvInitialized never goes back to false")
        #expect(!later.backupState)
        #expect(later.signCount == 6)
    }
}
