import Crypto
import Testing
import UMFACBOR
import UMFAWebAuthn

/// Attestation objects that are not what §6.5.4 describes.
enum GarbageAttestationObject: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case empty, notCBOR, trailingBytes, array, textString, missingFormat, formatNotText, missingStatement
    case statementNotMap, missingAuthData, authDataNotBytes, deepNesting, hugeDeclaredLength, indefiniteLength
    case duplicateKeys

    var testDescription: String { rawValue }

    func bytes(authData: [UInt8]) throws -> [UInt8] {
        let valid = CBORMap(["fmt": "none", "attStmt": .map(CBORMap()), "authData": .byteString(authData)])
        func without(_ key: CBORValue, replacing value: CBORValue? = nil) -> [UInt8] {
            var map = valid
            map[key] = value
            return CBOREncoder.encode(.map(map))
        }
        switch self {
        case .empty: return []
        case .notCBOR: return [0xff, 0xfe, 0xfd]
        case .trailingBytes: return CBOREncoder.encode(.map(valid)) + [0x00]
        case .array: return CBOREncoder.encode(.array(["none", .map(CBORMap()), .byteString(authData)]))
        case .textString: return CBOREncoder.encode("attestation")
        case .missingFormat: return without("fmt")
        case .formatNotText: return without("fmt", replacing: 0)
        case .missingStatement: return without("attStmt")
        case .statementNotMap: return without("attStmt", replacing: .array([]))
        case .missingAuthData: return without("authData")
        case .authDataNotBytes: return without("authData", replacing: .textString("AAAA"))
        case .deepNesting: return Array(repeating: 0x81, count: 10_000) + [0x00]
        case .hugeDeclaredLength:
            return [0xa1, 0x68] + Array("authData".utf8) + [0x5b] + Array(repeating: 0xff, count: 8)
        case .indefiniteLength: return [0xbf, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0xff]
        case .duplicateKeys:
            return [0xa2, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0x63] + Array("fmt".utf8)
                + [0x64] + Array("none".utf8)
        }
    }

    /// A `none` attestation object whose credential carries `publicKey` as it is.
    static func attestationObject(publicKey: CBORMap) throws -> [UInt8] {
        let rpIDHash = Array(SHA256.hash(data: Array(Fixture.rpID.utf8)))
        let credentialID = Fixture.credentialID()
        let flags = AuthenticatorFlags([.userPresent, .attestedCredentialData]).rawValue
        let authData =
            rpIDHash + [flags, 0, 0, 0, 0] + Fixture.aaguid + [0, UInt8(credentialID.count)] + credentialID
            + CBOREncoder.encode(.map(publicKey))
        return CBOREncoder.encode(
            .map(CBORMap(["fmt": "none", "attStmt": .map(CBORMap()), "authData": .byteString(authData)])))
    }
}

/// COSE keys that are malformed or use what UMFA does not support.
enum COSEKeyDefect: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case wrongCurve, shortCoordinate, longCoordinate, missingY, missingX, notOnCurve, missingKeyType
    case unknownKeyType, missingAlgorithm, unknownAlgorithm, ed448, okpWrongSize, okpWithECDSA, rsaTooShort
    case rsaMissingExponent, rsaSHA1, ec2WithEdDSA, algorithmAsText

    var testDescription: String { rawValue }

    var expectedCode: WebAuthnError.Code {
        switch self {
        case .unknownKeyType, .unknownAlgorithm, .ed448, .okpWithECDSA, .rsaSHA1, .ec2WithEdDSA:
            return .unsupportedAlgorithm
        default:
            return .invalidPublicKey
        }
    }

    var map: CBORMap {
        get throws {
            let p256 = try TestKey.make(.es256).coseMap
            var map = p256
            switch self {
            case .wrongCurve: map[-1] = 2
            case .shortCoordinate: map[-2] = .byteString(Array(repeating: 1, count: 31))
            case .longCoordinate: map[-3] = .byteString(Array(repeating: 1, count: 33))
            case .missingY: map[-3] = nil
            case .missingX: map[-2] = nil
            case .notOnCurve: map[-3] = .byteString(Array(repeating: 0x11, count: 32))
            case .missingKeyType: map[1] = nil
            case .unknownKeyType: map[1] = 7
            case .missingAlgorithm: map[3] = nil
            case .unknownAlgorithm: map[3] = -999
            case .ed448: return CBORMap([1: 1, 3: -8, -1: 7, -2: .byteString(Array(repeating: 0x42, count: 57))])
            case .okpWrongSize:
                return CBORMap([1: 1, 3: -8, -1: 6, -2: .byteString(Array(repeating: 0x42, count: 31))])
            case .okpWithECDSA:
                return CBORMap([1: 1, 3: -7, -1: 6, -2: .byteString(Array(repeating: 0x42, count: 32))])
            case .rsaTooShort:
                return CBORMap([
                    1: 3, 3: -257, -1: .byteString([0xc1] + Array(repeating: 0x55, count: 127)),
                    -2: .byteString([1, 0, 1]),
                ])
            case .rsaMissingExponent:
                return CBORMap([1: 3, 3: -257, -1: .byteString([0xc1] + Array(repeating: 0x55, count: 255))])
            case .rsaSHA1:
                return CBORMap([
                    1: 3, 3: -65535, -1: .byteString(Array(repeating: 0xc1, count: 256)), -2: .byteString([1, 0, 1]),
                ])
            case .ec2WithEdDSA: map[3] = -8
            case .algorithmAsText: map[3] = "ES256"
            }
            return map
        }
    }
}
