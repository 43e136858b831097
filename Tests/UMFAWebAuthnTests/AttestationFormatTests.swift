import Crypto
import Testing
import UMFACBOR
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// §7.1 steps 21–22: attestation statement formats `none`, `packed` and `fido-u2f`.
@Suite("Attestation formats (§7.1 steps 21–22)")
struct AttestationFormatTests {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI()
    }

    @Test("step 21: an unknown format is refused, and formats match case-sensitively")
    func unknownFormat() async throws {
        var factory = RegistrationFactory.es256(.packedSelf)
        for format in ["Packed", "NONE", "TPM", "Android-Key", "apple ", "packed ", "u2f"] {
            factory.formatOverride = format
            await expectRegistrationFailure(.unsupportedAttestationFormat, step: "7.1 step 21", factory)
        }
    }

    @Test("step 22 (none): a none statement must be empty")
    func noneNotEmpty() async {
        var factory = RegistrationFactory.es256(.none)
        factory.editStatement = { $0["sig"] = .byteString([1, 2, 3]) }
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }

    @Test("step 22 (packed self): a signature that does not verify is refused")
    func packedSelfBadSignature() async {
        var factory = RegistrationFactory.es256(.packedSelf)
        factory.editStatement = Self.flipSignature
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }

    @Test("step 22 (packed self): alg must be the credential key's algorithm")
    func packedSelfAlgorithmMismatch() async {
        var factory = RegistrationFactory.es256(.packedSelf)
        factory.algorithmOverride = .es384
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }

    @Test("step 22 (packed x5c): a signature that does not verify is refused")
    func packedBadSignature() async throws {
        var factory = RegistrationFactory.es256(.packed(try pki.signer()))
        factory.editStatement = Self.flipSignature
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }

    @Test("step 22 (packed x5c): a signature by another key than the certificate's is refused")
    func packedSignedByOtherKey() async throws {
        var signer = try pki.signer()
        signer.key = .p256(P256.Signing.PrivateKey())
        await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22", RegistrationFactory.es256(.packed(signer)))
    }

    @Test("step 22 (packed x5c): alg that does not fit the certificate key is refused")
    func packedAlgorithmDoesNotFitCertificate() async throws {
        var factory = RegistrationFactory.es256(.packed(try pki.signer()))
        factory.algorithmOverride = .rs256
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }

    @Test(
        "step 22 (packed x5c): a leaf that breaks §8.2.1 is refused",
        arguments: [
            LeafDefect.organizationalUnit, .certificateAuthority, .aaguidMismatch, .aaguidCritical, .countryCode,
            .noOrganization, .noCommonName, .version1,
        ])
    func packedCertificateRequirements(defect: LeafDefect) async throws {
        let factory = RegistrationFactory.es256(.packed(try pki.signer(defect.options)))
        let error = await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
        #expect(error?.message.contains(defect.reason) == true, "\(String(describing: error))")
    }

    @Test("step 22 (packed x5c): a leaf without the AAGUID extension is accepted as basic")
    func packedWithoutAAGUIDExtension() async throws {
        var options = TestPKI.LeafOptions()
        options.aaguid = nil
        let result = try await RegistrationVerifier(policy: Fixture.policy()).verify(
            RegistrationFactory.es256(.packed(try pki.signer(options))))
        #expect(result.attestation.type == .basic)
        #expect(result.attestation.trustPath.count == 1)
    }

    @Test("step 22 (packed x5c): an empty x5c or a non-certificate is refused")
    func packedMalformedX5C() async throws {
        var factory = RegistrationFactory.es256(.packed(try pki.signer()))
        factory.editStatement = { $0["x5c"] = .array([]) }
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
        factory.editStatement = { $0["x5c"] = .array([.byteString([0x30, 0x03, 0x02, 0x01, 0x01])]) }
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
        factory.editStatement = { $0["alg"] = "ES256" }
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }

    @Test("step 22 (fido-u2f): a signature that does not verify is refused")
    func u2fBadSignature() async throws {
        var factory = RegistrationFactory.es256(.fidoU2F(try pki.signer()))
        factory.editStatement = Self.flipSignature
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }

    @Test("step 22 (fido-u2f): x5c must hold exactly one certificate")
    func u2fTwoCertificates() async throws {
        var signer = try pki.signer()
        signer.certificates.append(pki.root)
        await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22", RegistrationFactory.es256(.fidoU2F(signer)))
    }

    @Test("step 22 (fido-u2f): the attestation certificate key must be P-256")
    func u2fCertificateNotP256() async throws {
        let key = P384.Signing.PrivateKey()
        let signer = AttestationSigner(key: .p384(key), certificates: [try pki.leaf(for: .init(key.publicKey))])
        await expectRegistrationFailure(
            .invalidAttestation, step: "7.1 step 22", RegistrationFactory.es256(.fidoU2F(signer)))
    }

    @Test("step 22 (fido-u2f): the credential key must be EC2 P-256", arguments: [COSEAlgorithm.es384, .edDSA])
    func u2fCredentialNotP256(algorithm: COSEAlgorithm) async throws {
        let factory = RegistrationFactory(key: try TestKey.make(algorithm), attestation: .fidoU2F(try pki.signer()))
        await expectRegistrationFailure(.invalidAttestation, step: "7.1 step 22", factory)
    }

    @Test("step 22: every supported format verifies a genuine statement")
    func genuineStatements() async throws {
        let verifier = RegistrationVerifier(policy: Fixture.policy())
        let none = try await verifier.verify(RegistrationFactory.es256(.none))
        #expect(none.attestation.type == .none && none.attestation.trust == AttestationTrust.none)
        let selfAttested = try await verifier.verify(RegistrationFactory.es256(.packedSelf))
        #expect(selfAttested.attestation.type == .self && selfAttested.attestation.trust == .selfAttested)
        let packed = try await verifier.verify(RegistrationFactory.es256(.packed(try pki.signer())))
        #expect(packed.attestation.type == .basic && packed.attestation.trust.label == "untrusted")
        let u2f = try await verifier.verify(RegistrationFactory.es256(.fidoU2F(try pki.signer())))
        #expect(u2f.format == "fido-u2f" && u2f.attestation.type == .basic)
    }

    static func flipSignature(_ statement: inout CBORMap) {
        guard var signature = statement["sig"]?.bytesValue, !signature.isEmpty else { return }
        signature[signature.count / 2] ^= 0x01
        statement["sig"] = .byteString(signature)
    }
}

/// One way a packed attestation certificate breaks §8.2.1.
enum LeafDefect: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case organizationalUnit, certificateAuthority, aaguidMismatch, aaguidCritical, countryCode, noOrganization
    case noCommonName, version1

    var testDescription: String { rawValue }

    /// What the refusal must name.
    var reason: String {
        switch self {
        case .organizationalUnit: return "Subject-OU"
        case .certificateAuthority: return "CA false"
        case .aaguidMismatch: return "does not match"
        case .aaguidCritical: return "must not be critical"
        case .countryCode: return "Subject-C"
        case .noOrganization: return "Subject-O"
        case .noCommonName: return "Subject-CN"
        case .version1: return "version must be 3"
        }
    }

    var options: TestPKI.LeafOptions {
        var options = TestPKI.LeafOptions()
        switch self {
        case .organizationalUnit: options.organizationalUnit = "Authenticator attestation"
        case .certificateAuthority: options.isCertificateAuthority = true
        case .aaguidMismatch: options.aaguid = Array(repeating: 0xee, count: 16)
        case .aaguidCritical: options.aaguidCritical = true
        case .countryCode: options.country = "USA"
        case .noOrganization: options.organization = nil
        case .noCommonName: options.commonName = nil
        case .version1:
            options.version = .v1
            options.aaguid = nil
        }
        return options
    }
}
