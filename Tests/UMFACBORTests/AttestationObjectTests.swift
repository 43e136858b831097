import Testing
import UMFACBOR

@Suite("W3C WebAuthn attestation objects")
struct AttestationObjectTests {
    @Test("the resource holds all fifteen W3C vectors")
    func vectorsLoaded() {
        #expect(AttestationVector.all.count == 15)
        #expect(Set(AttestationVector.all.map(\.fmt)) == ["none", "packed", "tpm", "android-key", "apple", "fido-u2f"])
    }

    @Test("decodes to a map of fmt, attStmt and authData", arguments: AttestationVector.all)
    func decodes(vector: AttestationVector) throws {
        let map = try #require(try CBORDecoder().decode(vector.attestationObject).mapValue)
        #expect(map.entries.map(\.key) == ["fmt", "attStmt", "authData"])
        #expect(map["fmt"]?.stringValue == vector.fmt)
        #expect(map["attStmt"]?.mapValue != nil)
        #expect(map["authData"]?.bytesValue?.count == vector.authDataLength)
    }

    @Test("re-encoding a canonical attestation object gives the same bytes", arguments: AttestationVector.all)
    func canonicalReencoding(vector: AttestationVector) throws {
        let value = try CBORDecoder().decode(vector.attestationObject)
        let reencoded = CBOREncoder.encode(value)
        #expect((reencoded == vector.attestationObject) == vector.canonical)
        #expect(try CBORDecoder().decode(reencoded) == value)
    }

    @Test("every strict prefix is truncated, and never traps", arguments: AttestationVector.all)
    func everyPrefixIsTruncated(vector: AttestationVector) {
        let input = vector.attestationObject
        let decoder = CBORDecoder()
        var wrongCodes: [Int] = []
        for length in 0..<input.count {
            do {
                _ = try decoder.decodePrefix(input[..<length])
                wrongCodes.append(length)
            } catch {
                if error.code != .truncated { wrongCodes.append(length) }
            }
        }
        #expect(wrongCodes.isEmpty, "prefix lengths not refused as truncated: \(wrongCodes.prefix(10))")
        #expect(decodingError(input) == nil)
    }

    @Test("an extra byte after a real attestation object is trailing data", arguments: AttestationVector.all)
    func trailingByte(vector: AttestationVector) throws {
        let error = decodingError(vector.attestationObject + [0x00])
        #expect(error?.code == .trailingBytes)
        #expect(error?.offset == vector.attestationObject.count)
        let (_, consumed) = try CBORDecoder().decodePrefix(vector.attestationObject + [0xff, 0xff])
        #expect(consumed == vector.attestationObject.count)
    }

    @Test("a non-canonical attestation object decodes to the same value and re-encodes canonically")
    func nonCanonicalInput() throws {
        let vector = try #require(AttestationVector.all.first { $0.id == "packed-self-es256" })
        let canonical = vector.attestationObject
        let value = try CBORDecoder().decode(canonical)
        let map = try #require(value.mapValue)
        let fmt = try #require(map["fmt"])
        let attStmt = try #require(map["attStmt"])
        let authData = try #require(map["authData"]?.bytesValue)
        try #require(authData.count < 256)

        // Keys in reverse order, and authData's length in a two-byte head instead of one.
        var shuffled: [UInt8] = [0xa3]
        shuffled += CBOREncoder.encode("authData") + [0x59, 0x00, UInt8(authData.count)] + authData
        shuffled += CBOREncoder.encode("attStmt") + CBOREncoder.encode(attStmt)
        shuffled += CBOREncoder.encode("fmt") + CBOREncoder.encode(fmt)
        #expect(shuffled.count == canonical.count + 1)

        let decoded = try CBORDecoder().decode(shuffled)
        #expect(decoded.mapValue?.entries.map(\.key) == ["authData", "attStmt", "fmt"])
        #expect(decoded == value)
        #expect(CBOREncoder.encode(decoded) == canonical)
    }

    @Test("the packed attestation statement holds alg and sig")
    func packedStatement() throws {
        let vector = try #require(AttestationVector.all.first { $0.id == "packed-self-es256" })
        let value = try CBORDecoder().decode(vector.attestationObject)
        let statement = try #require(value.mapValue?["attStmt"]?.mapValue)
        #expect(statement["alg"]?.int64Value == -7)
        #expect(statement["sig"]?.bytesValue?.first == 0x30)  // a DER ECDSA signature
        #expect(statement.entries.map(\.key) == ["alg", "sig"])
    }
}
