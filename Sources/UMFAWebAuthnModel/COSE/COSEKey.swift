import Crypto
import Foundation
import UMFACBOR
import UMFAWebAuthnTypes
import _CryptoExtras

/// A credential public key in COSE_Key form (RFC 9052 §7, WebAuthn L3 §6.5.1.1).
///
/// Supported: EC2 on P-256, P-384 and P-521 (ES256, ES384, ES512), OKP Ed25519 (EdDSA) and
/// RSA of at least 2048 bits (RS256/384/512, PS256/384/512). Anything else is refused with
/// ``WebAuthnError/Code/unsupportedAlgorithm``. Two keys are equal when their encodings are.
public struct COSEKey: Sendable, Hashable {
    /// COSE key types (RFC 9053).
    public enum KeyType: Int64, Sendable {
        /// Octet key pair (Ed25519).
        case okp = 1
        /// Elliptic curve with x and y coordinates.
        case ec2 = 2
        /// RSA.
        case rsa = 3
    }

    /// The algorithm the key is used with.
    public let algorithm: COSEAlgorithm
    /// The key type.
    public let keyType: KeyType
    /// The canonical CBOR encoding of the key.
    public let encoded: [UInt8]
    package let verifyingKey: SignatureVerifyingKey

    /// Parses a COSE key from its CBOR bytes.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw WebAuthnError(.invalidPublicKey, "COSE key is not CBOR: \(error)")
        }
        try self.init(cbor: value)
    }

    /// Parses a COSE key from a decoded CBOR map.
    public init(cbor: CBORValue) throws(WebAuthnError) {
        guard let map = cbor.mapValue else {
            throw WebAuthnError(.invalidPublicKey, "COSE key is not a CBOR map")
        }
        guard let ktyValue = map[1]?.int64Value else {
            throw WebAuthnError(.invalidPublicKey, "COSE key has no integer key type (label 1)")
        }
        guard let kty = KeyType(rawValue: ktyValue) else {
            throw WebAuthnError(.unsupportedAlgorithm, "COSE key type \(ktyValue) is not supported")
        }
        guard let algValue = map[3]?.int64Value, let alg = Int(exactly: algValue) else {
            throw WebAuthnError(.invalidPublicKey, "COSE key has no algorithm (label 3)")
        }
        let algorithm = COSEAlgorithm(rawValue: alg)
        self.algorithm = algorithm
        self.keyType = kty
        switch kty {
        case .ec2: verifyingKey = try Self.ec2Key(map, algorithm: algorithm)
        case .okp: verifyingKey = try Self.okpKey(map, algorithm: algorithm)
        case .rsa: verifyingKey = try Self.rsaKey(map, algorithm: algorithm)
        }
        encoded = CBOREncoder.encode(cbor)
    }

    /// Wraps a P-256 key for ES256, as a software authenticator creates one.
    public init(p256 key: P256.Signing.PublicKey) {
        let raw = [UInt8](key.x963Representation)
        let map = CBORMap([
            1: CBORValue(KeyType.ec2.rawValue), 3: CBORValue(Int64(COSEAlgorithm.es256.rawValue)), -1: 1,
            -2: .byteString(Array(raw[1..<33])), -3: .byteString(Array(raw[33..<65])),
        ])
        self.algorithm = .es256
        self.keyType = .ec2
        self.encoded = CBOREncoder.encode(.map(map))
        self.verifyingKey = .p256(key, .sha256)
    }

    /// Whether `signature` is this key's signature over `data` under its algorithm.
    ///
    /// ECDSA signatures are DER-encoded, as WebAuthn specifies; EdDSA and RSA ones are raw.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        verifyingKey.isValidSignature(signature, for: data)
    }

    /// The key as SubjectPublicKeyInfo DER, as certificates and `getPublicKey()` carry keys.
    public var subjectPublicKeyInfo: [UInt8] {
        switch verifyingKey {
        case .p256(let key, _): return [UInt8](key.derRepresentation)
        case .p384(let key, _): return [UInt8](key.derRepresentation)
        case .p521(let key, _): return [UInt8](key.derRepresentation)
        case .ed25519(let key): return Self.ed25519SPKIPrefix + [UInt8](key.rawRepresentation)
        case .rsa(let key, _, _): return [UInt8](key.derRepresentation)
        }
    }

    /// The uncompressed EC point `04 || x || y` of a P-256 key, as FIDO U2F signs it.
    package var p256UncompressedPoint: [UInt8]? {
        if case .p256(let key, _) = verifyingKey { return [UInt8](key.x963Representation) }
        return nil
    }

    /// Compares by code only.
    public static func == (lhs: COSEKey, rhs: COSEKey) -> Bool { lhs.encoded == rhs.encoded }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }

    package static let ed25519SPKIPrefix: [UInt8] = [
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
    ]
}

extension COSEKey {
    static func bytes(_ map: CBORMap, _ label: Int64, _ name: String) throws(WebAuthnError) -> [UInt8] {
        guard let bytes = map[CBORValue(label)]?.bytesValue else {
            throw WebAuthnError(.invalidPublicKey, "COSE key lacks \(name) (label \(label))")
        }
        return bytes
    }

    static func ec2Key(_ map: CBORMap, algorithm: COSEAlgorithm) throws(WebAuthnError) -> SignatureVerifyingKey {
        let curve = map[-1]?.int64Value
        let expected: (curve: Int64, size: Int)
        switch algorithm {
        case .es256: expected = (1, 32)
        case .es384: expected = (2, 48)
        case .es512: expected = (3, 66)
        default: throw WebAuthnError(.unsupportedAlgorithm, "EC2 key with algorithm \(algorithm) is not supported")
        }
        guard curve == expected.curve else {
            throw WebAuthnError(
                .invalidPublicKey, "EC2 curve \(curve.map(String.init) ?? "missing") does not fit \(algorithm)")
        }
        let x = try bytes(map, -2, "x")
        let y = try bytes(map, -3, "y")
        guard x.count == expected.size, y.count == expected.size else {
            throw WebAuthnError(.invalidPublicKey, "EC2 coordinates must be \(expected.size) bytes each")
        }
        let point = [0x04] + x + y
        do {
            switch algorithm {
            case .es256: return .p256(try P256.Signing.PublicKey(x963Representation: point), .sha256)
            case .es384: return .p384(try P384.Signing.PublicKey(x963Representation: point), .sha384)
            default: return .p521(try P521.Signing.PublicKey(x963Representation: point), .sha512)
            }
        } catch {
            throw WebAuthnError(.invalidPublicKey, "EC2 point is not on the curve")
        }
    }

    static func okpKey(_ map: CBORMap, algorithm: COSEAlgorithm) throws(WebAuthnError) -> SignatureVerifyingKey {
        guard algorithm == .edDSA || algorithm == .ed25519 else {
            throw WebAuthnError(.unsupportedAlgorithm, "OKP key with algorithm \(algorithm) is not supported")
        }
        guard map[-1]?.int64Value == 6 else {
            throw WebAuthnError(
                .unsupportedAlgorithm,
                "OKP curve \(map[-1].map { "\($0)" } ?? "missing") is not supported (only Ed25519)")
        }
        let x = try bytes(map, -2, "x")
        do {
            return .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x))
        } catch {
            throw WebAuthnError(.invalidPublicKey, "Ed25519 key must be 32 bytes")
        }
    }

    static func rsaKey(_ map: CBORMap, algorithm: COSEAlgorithm) throws(WebAuthnError) -> SignatureVerifyingKey {
        guard let (hash, pss) = SignatureVerifyingKey.rsaParameters(algorithm) else {
            throw WebAuthnError(.unsupportedAlgorithm, "RSA key with algorithm \(algorithm) is not supported")
        }
        let modulus = try bytes(map, -1, "n")
        let exponent = try bytes(map, -2, "e")
        do {
            return .rsa(try _RSA.Signing.PublicKey(n: modulus, e: exponent), hash, pss: pss)
        } catch {
            throw WebAuthnError(.invalidPublicKey, "RSA key is invalid or shorter than 2048 bits")
        }
    }
}
