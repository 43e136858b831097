import Crypto
import Testing
import UMFACBOR
import UMFAWebAuthn
import X509

/// §8.3: the `tpm` format, each requirement broken once on a genuine statement.
@Suite("tpm attestation (§8.3)")
struct TPMAttestationTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    func factory(_ adjust: (inout TPMStatement) -> Void = { _ in }, key: TestKey? = nil) -> RegistrationFactory {
        var statement = TPMStatement(pki: pki)
        adjust(&statement)
        return RegistrationFactory(key: key ?? .p256(P256.Signing.PrivateKey()), attestation: statement.attestation)
    }

    func refused(
        _ reason: String, sourceLocation: SourceLocation = #_sourceLocation, _ adjust: (inout TPMStatement) -> Void
    ) async {
        let error = await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22", sourceLocation: sourceLocation, factory(adjust))
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test("a genuine ECC and RSA statement verifies as AttCA, trusted by the issuing root")
    func genuine() async throws {
        let policy = Fixture.policy {
            $0.trustAnchors = AttestationTrustAnchors(rootsByFormat: ["tpm": [pki.root]])
            $0.attestation = .trustedOnly
        }
        for key in [TestKey.p256(P256.Signing.PrivateKey()), try TestKey.make(.rs256)] {
            let result = try await RegistrationVerifier(policy: policy).verify(factory(key: key))
            #expect(result.format == "tpm" && result.attestation.type == .attCA)
            #expect(result.attestation.trust.label == "trusted")
            #expect(result.attestation.aaguidProof == .certificateExtension)
        }
    }

    @Test("step 1: ver must be 2.0") func version() async { await refused("ver") { $0.version = "1.2" } }
    @Test("step 2: pubArea must hold the credential key")
    func pubAreaKey() async { await refused("pubArea ECC key differs") { $0.otherKeyInPubArea = true } }
    @Test("step 2: pubArea may not carry trailing bytes")
    func pubAreaTrailing() async { await refused("pubArea has trailing bytes") { $0.trailingPubAreaByte = true } }
    @Test("step 4: magic must be TPM_GENERATED_VALUE")
    func magic() async { await refused("magic") { $0.magic = 0xff54_4348 } }
    @Test("step 4: type must be TPM_ST_ATTEST_CERTIFY")
    func type() async { await refused("TPM_ST_ATTEST_CERTIFY") { $0.type = 0x8018 } }
    @Test("step 4: extraData must be the hash of attToBeSigned")
    func extraData() async { await refused("extraData") { $0.extraData = Array(repeating: 7, count: 32) } }
    @Test("step 4: the certified Name must be pubArea's Name")
    func name() async { await refused("name") { $0.name = [0x00, 0x0b] + Array(repeating: 1, count: 32) } }
    @Test("step 4: a SHA-1 Name is computed with SHA-1 and accepted")
    func sha1Name() async throws {
        let result = try await RegistrationVerifier(policy: Fixture.policy()).verify(factory { $0.nameAlg = 0x0004 })
        #expect(result.attestation.type == .attCA)
    }
    @Test("step 5: x5c is required") func x5c() async { await refused("x5c is missing") { $0.omitX5C = true } }
    @Test("step 6: sig must be the AIK's signature over certInfo")
    func signature() async { await refused("sig is not the AIK") { $0.signWithOtherKey = true } }
    @Test("§8.3.1: the AIK certificate subject must be empty")
    func subject() async throws {
        let name = try DistinguishedName { CommonName("not empty") }
        await refused("subject must be empty") { $0.subject = name }
    }
    @Test("§8.3.1: the subject alternative name must name the TPM")
    func subjectAlternativeName() async {
        await refused("manufacturer, model and version") { $0.includeSubjectAlternativeName = false }
    }
    @Test("§8.3.1: the TPM manufacturer must be a registered vendor")
    func manufacturer() async { await refused("not a registered TPM vendor") { $0.manufacturer = "id:12345678" } }
    @Test("§8.3.1: extended key usage must contain tcg-kp-AIKCertificate")
    func usage() async { await refused("2.23.133.8.3") { $0.includeAIKUsage = false } }
    @Test("§8.3.1: Basic Constraints must say CA false")
    func basicConstraints() async { await refused("CA false") { $0.isCertificateAuthority = true } }
    @Test("step 8: the AIK certificate's AAGUID must match authenticator data")
    func aaguid() async { await refused("AAGUID") { $0.aaguid = Array(repeating: 0xee, count: 16) } }

    @Test("pubArea and certInfo that are cut short are refused, never trapped on")
    func truncated() async throws {
        for field in ["pubArea", "certInfo"] {
            var factory = factory()
            factory.editStatement = { statement in
                if let bytes = statement[CBORValue(stringLiteral: field)]?.bytesValue {
                    statement[CBORValue(stringLiteral: field)] = .byteString(Array(bytes.prefix(bytes.count / 2)))
                }
            }
            let error = await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
            #expect(error?.message.contains("truncated") == true || error?.message.contains("differs") == true)
        }
    }
}
