import Crypto
import Foundation
import UMFACBOR
import UMFAWebAuthn
import UMFAWebAuthnTypes
import _CryptoExtras

/// A credential private key for one COSE algorithm, used to make real signatures in tests.
enum TestKey: Sendable {
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case p521(P521.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)
    case rsa(_RSA.Signing.PrivateKey, COSEAlgorithm)

    /// Every algorithm the round-trip tests register and authenticate with.
    static let roundTripAlgorithms: [COSEAlgorithm] = [.es256, .es384, .es512, .edDSA, .rs256, .ps256]

    /// One RSA-2048 key for the whole run: generating one costs far more than using it.
    private static let sharedRSA = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    /// A fresh key for `algorithm` (RSA keys are shared between tests).
    static func make(_ algorithm: COSEAlgorithm) throws -> TestKey {
        switch algorithm {
        case .es256: return .p256(P256.Signing.PrivateKey())
        case .es384: return .p384(P384.Signing.PrivateKey())
        case .es512: return .p521(P521.Signing.PrivateKey())
        case .edDSA: return .ed25519(Curve25519.Signing.PrivateKey())
        case .rs256, .ps256: return .rsa(try sharedRSA.get(), algorithm)
        default: throw TestSetupError("no test key for \(algorithm)")
        }
    }

    /// The COSE algorithm the key signs with.
    var algorithm: COSEAlgorithm {
        switch self {
        case .p256: return .es256
        case .p384: return .es384
        case .p521: return .es512
        case .ed25519: return .edDSA
        case .rsa(_, let algorithm): return algorithm
        }
    }

    /// The public key as a COSE_Key map (RFC 9053), as an authenticator would encode it.
    var coseMap: CBORMap {
        get throws {
            let alg = CBORValue(Int64(algorithm.rawValue))
            switch self {
            case .p256(let key): return Self.ec2Map(alg: alg, curve: 1, point: key.publicKey.x963Representation)
            case .p384(let key): return Self.ec2Map(alg: alg, curve: 2, point: key.publicKey.x963Representation)
            case .p521(let key): return Self.ec2Map(alg: alg, curve: 3, point: key.publicKey.x963Representation)
            case .ed25519(let key):
                return CBORMap([1: 1, 3: alg, -1: 6, -2: .byteString(Array(key.publicKey.rawRepresentation))])
            case .rsa(let key, _):
                let primitives = try key.publicKey.getKeyPrimitives()
                return CBORMap([
                    1: 3, 3: alg, -1: .byteString(Array(primitives.modulus)),
                    -2: .byteString(Array(primitives.publicExponent)),
                ])
            }
        }
    }

    /// The public key parsed by UMFA.
    var coseKey: COSEKey {
        get throws { try COSEKey(cbor: .map(coseMap)) }
    }

    /// A signature over `data` as WebAuthn carries it: DER for ECDSA, raw for EdDSA and RSA.
    func sign(_ data: [UInt8]) throws -> [UInt8] {
        switch self {
        case .p256(let key): return Array(try key.signature(for: data).derRepresentation)
        case .p384(let key): return Array(try key.signature(for: data).derRepresentation)
        case .p521(let key): return Array(try key.signature(for: data).derRepresentation)
        case .ed25519(let key): return Array(try key.signature(for: data))
        case .rsa(let key, let algorithm):
            let padding: _RSA.Signing.Padding = algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5
            return Array(try key.signature(for: SHA256.hash(data: data), padding: padding).rawRepresentation)
        }
    }

    private static func ec2Map(alg: CBORValue, curve: Int64, point: Data) -> CBORMap {
        let bytes = Array(point)
        let size = (bytes.count - 1) / 2
        return CBORMap([
            1: 2, 3: alg, -1: CBORValue(curve), -2: .byteString(Array(bytes[1...size])),
            -3: .byteString(Array(bytes[(size + 1)...])),
        ])
    }
}

/// A test fixture could not be built.
struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
