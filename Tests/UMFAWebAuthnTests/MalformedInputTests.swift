import Crypto
import Testing
import UMFACBOR
import UMFATestSupport
import UMFAWebAuthn

/// Hostile or broken bytes: always a clear error, never a crash.
@Suite("Malformed input")
struct MalformedInputTests {
    /// Authenticator data with attested credential data and extensions, as a registration has.
    func fullAuthenticatorData() throws -> [UInt8] {
        var factory = RegistrationFactory.es256()
        factory.extensions = CBORMap(["credProtect": 2, "hmac-secret": .boolean(true)])
        return try factory.authenticatorData().rawBytes
    }

    @Test("authenticator data truncated at every length is refused as malformed")
    func truncatedAuthenticatorData() throws {
        let full = try fullAuthenticatorData()
        #expect(try AuthenticatorData(bytes: full).rawBytes == full)
        for length in 0..<full.count {
            let error = #expect(throws: WebAuthnError.self) { try AuthenticatorData(bytes: Array(full.prefix(length))) }
            #expect(error?.code == .malformedResponse, "length \(length): \(String(describing: error))")
        }
    }

    @Test("authenticator data with trailing bytes or flags that lie about what follows is refused")
    func inconsistentFlags() throws {
        let full = try fullAuthenticatorData()
        var withoutED = full
        withoutED[32] &= ~AuthenticatorFlags.extensionData.rawValue
        var withoutAT = full
        withoutAT[32] &= ~AuthenticatorFlags.attestedCredentialData.rawValue
        for bytes in [full + [0x00], withoutED, withoutAT, Array(full.prefix(37)) + [0xa0]] {
            let error = #expect(throws: WebAuthnError.self) { try AuthenticatorData(bytes: bytes) }
            #expect(error?.code == .malformedResponse)
        }
    }

    @Test("a registration whose authenticator data is truncated fails at step 13")
    func truncatedInsideAttestationObject() async throws {
        let full = try fullAuthenticatorData()
        for length in [0, 36, 37, 54, 56, full.count - 1] {
            var factory = RegistrationFactory.es256()
            factory.attestationObjectOverride = CBOREncoder.encode(
                .map(
                    CBORMap([
                        "fmt": "none", "attStmt": .map(CBORMap()), "authData": .byteString(Array(full.prefix(length))),
                    ])))
            await expectRegistrationFailure(.malformedResponse, step: "7.1 step 13", factory)
        }
    }

    @Test("garbage attestation objects are refused at step 13", arguments: GarbageAttestationObject.allCases)
    func garbageAttestationObject(garbage: GarbageAttestationObject) async throws {
        var factory = RegistrationFactory.es256()
        factory.attestationObjectOverride = try garbage.bytes(authData: try fullAuthenticatorData())
        await expectRegistrationFailure(.malformedResponse, step: "7.1 step 13", factory)
    }

    @Test("seeded random bytes never crash the attestation object or authenticator data parsers")
    func randomBytes() {
        var generator = SeededGenerator(seed: 0x5eed_cafe)
        for round in 0..<2_000 {
            let count = Int(generator.next() % 300)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if round.isMultiple(of: 2), !bytes.isEmpty { bytes[0] = 0xa3 }  // looks like a 3-entry map
            let attestation = #expect(throws: WebAuthnError.self) { try AttestationObject(bytes: bytes) }
            #expect(attestation?.code == .malformedResponse)
            if count < 37 {
                #expect(throws: WebAuthnError.self) { try AuthenticatorData(bytes: bytes) }
            } else {
                _ = try? AuthenticatorData(bytes: bytes)
            }
        }
    }

    @Test("a credential with an Ed448 key is refused as an unsupported algorithm at step 13")
    func ed448Credential() async throws {
        var factory = RegistrationFactory.es256()
        factory.attestationObjectOverride = try GarbageAttestationObject.attestationObject(
            publicKey: COSEKeyDefect.ed448.map)
        await expectRegistrationFailure(.unsupportedAlgorithm, step: "7.1 step 13", factory)
    }

    @Test("malformed COSE keys get a clear error code", arguments: COSEKeyDefect.allCases)
    func coseKey(defect: COSEKeyDefect) throws {
        let error = #expect(throws: WebAuthnError.self) { try COSEKey(cbor: .map(try defect.map)) }
        #expect(error?.code == defect.expectedCode, "\(String(describing: error))")
        let fromBytes = #expect(throws: WebAuthnError.self) {
            try COSEKey(bytes: CBOREncoder.encode(.map(try defect.map)))
        }
        #expect(fromBytes?.code == defect.expectedCode)
    }

    @Test("COSE keys that are not CBOR maps are refused as invalid")
    func coseKeyNotAMap() {
        for bytes: [UInt8] in [[], [0x01], [0x80], [0xa1, 0x01], [0x5f, 0xff]] {
            let error = #expect(throws: WebAuthnError.self) { try COSEKey(bytes: bytes) }
            #expect(error?.code == .invalidPublicKey)
        }
    }

    @Test("every algorithm's well-formed COSE key parses and reports its algorithm")
    func wellFormedKeys() throws {
        for algorithm in TestKey.roundTripAlgorithms {
            let key = try TestKey.make(algorithm)
            let parsed = try COSEKey(bytes: CBOREncoder.encode(.map(try key.coseMap)))
            #expect(parsed.algorithm == algorithm)
            #expect(parsed == (try key.coseKey))
            #expect(!parsed.subjectPublicKeyInfo.isEmpty)
        }
    }
}
