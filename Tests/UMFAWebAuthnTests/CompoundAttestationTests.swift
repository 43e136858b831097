import Crypto
import Testing
import UMFACBOR
import UMFAWebAuthn

/// §8.9: the `compound` format.
@Suite("compound attestation (§8.9)")
struct CompoundAttestationTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    /// A compound statement of a self-attested packed and an apple statement.
    func factory(_ edit: @escaping (inout [CBORValue]) -> Void = { _ in }) -> RegistrationFactory {
        let apple = AppleStatement(pki: pki)
        return RegistrationFactory.es256(
            .custom(format: "compound") { input in
                let packed = CBORMap([
                    "alg": CBORValue(Int64(input.credentialKey.algorithm.rawValue)),
                    "sig": .byteString(try input.credentialKey.sign(input.signedData)),
                ])
                var items: [CBORValue] = [
                    .map(CBORMap(["fmt": "packed", "attStmt": .map(packed)])),
                    .map(CBORMap(["fmt": "apple", "attStmt": .map(try apple.build(input))])),
                ]
                edit(&items)
                return CBORMap(["attStmt": .array(items)])
            })
    }

    @Test("two genuine statements verify; trusted when one of them chains to a root")
    func genuine() async throws {
        let untrusted = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory())
        #expect(untrusted.format == "compound" && untrusted.attestation.type == .anonCA)
        #expect(untrusted.attestation.trust.label == "untrusted")
        let policy = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(rootsByFormat: ["apple": [pki.root]])
            $0.attestation = .selfOrTrusted
        }
        let trusted = try await RegistrationVerifier(policy: policy).verify(factory())
        #expect(trusted.attestation.trust.label == "trusted" && !trusted.attestation.aaguidProven)
        let named = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(rootsByAAGUID: [AAGUID.string(Fixture.aaguid): [pki.root]])
            $0.attestation = .trustedOnly
        }
        let proven = try await RegistrationVerifier(policy: named).verify(factory())
        #expect(proven.attestation.trust.label == "trusted" && proven.attestation.aaguidProof == .modelRoots)
    }

    @Test("step 1: at least two statements")
    func tooFew() async {
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory { $0.removeLast() })
    }

    @Test("step 2: a compound statement may not nest another compound")
    func nested() async {
        let error = await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22",
            factory { $0.append(.map(CBORMap(["fmt": "compound", "attStmt": .map(CBORMap())]))) })
        #expect(error?.message.contains("compound") == true)
    }

    @Test("step 2: every sub-statement must verify")
    func brokenComponent() async {
        await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22",
            factory { items in
                items[0] = .map(
                    CBORMap(["fmt": "packed", "attStmt": .map(CBORMap(["alg": -7, "sig": .byteString([1])]))]))
            })
    }

    @Test("step 2: an unknown sub-format is refused")
    func unknownComponent() async {
        await expectRegistrationFailure(
            .unsupportedAttestationFormat, step: "7.1 step 22",
            factory { $0.append(.map(CBORMap(["fmt": "future", "attStmt": .map(CBORMap())]))) })
    }

    @Test("step 1: a map where the array belongs is refused")
    func notAnArray() async {
        var factory = factory()
        factory.editStatement = { $0 = CBORMap(["fmt": "packed"]) }
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }
}
