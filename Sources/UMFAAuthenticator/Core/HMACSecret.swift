import Crypto

/// A credential's two hmac-secret keys (CTAP 2.1 §12.5): one for assertions with user
/// verification, one for those without, so the two kinds never give the same output.
public struct CredRandom: Sendable, Hashable {
    /// The key used when the user was verified.
    public let withUV: [UInt8]
    /// The key used when only user presence was shown.
    public let withoutUV: [UInt8]

    /// CredRandom values are 32 bytes (CTAP 2.1 §12.5).
    public static let length = 32

    /// Associated data that keeps the sealed CredRandom apart from the sealed private key.
    static let sealingContext = Array("hmac-secret".utf8)

    /// Creates the values.
    public init(withUV: [UInt8], withoutUV: [UInt8]) {
        self.withUV = withUV
        self.withoutUV = withoutUV
    }

    /// CTAP 2.1 §12.5 authenticatorGetAssertion: `output1 = HMAC-SHA-256(CredRandom, salt1)`
    /// and, with a second salt, `output2 = HMAC-SHA-256(CredRandom, salt2)`, CredRandom chosen
    /// by whether the user was verified.
    public func outputs(for salts: HMACSecretSalts, userVerified: Bool) -> HMACSecretOutput {
        let key = SymmetricKey(data: userVerified ? withUV : withoutUV)
        func mac(_ salt: [UInt8]) -> [UInt8] { Array(HMAC<SHA256>.authenticationCode(for: salt, using: key)) }
        return HMACSecretOutput(output1: mac(salts.salt1), output2: salts.salt2.map(mac))
    }
}

/// The hmac-secret inputs of one assertion: one or two 32-byte salts (CTAP 2.1 §12.5).
public struct HMACSecretSalts: Sendable, Hashable {
    /// The first salt.
    public let salt1: [UInt8]
    /// The optional second salt.
    public let salt2: [UInt8]?

    /// Creates the salts.
    /// - Throws: ``AuthenticatorError`` `invalidData` unless each salt is 32 bytes.
    public init(salt1: [UInt8], salt2: [UInt8]? = nil) throws(AuthenticatorError) {
        guard salt1.count == 32, salt2.map({ $0.count == 32 }) ?? true else {
            throw AuthenticatorError(.invalidData, "hmac-secret salts are 32 bytes")
        }
        self.salt1 = salt1
        self.salt2 = salt2
    }
}

/// The hmac-secret outputs of one assertion: one per salt.
public struct HMACSecretOutput: Sendable, Hashable {
    /// HMAC-SHA-256 of the first salt.
    public let output1: [UInt8]
    /// HMAC-SHA-256 of the second salt, when one was given.
    public let output2: [UInt8]?
}

/// CTAP 2.1 §12.1 `credProtect`: when a credential may be used or revealed without user verification.
public enum CredentialProtectionPolicy: Int, Codable, Sendable, Hashable, CaseIterable {
    /// Level 1: always usable, discoverable without an allow list.
    case userVerificationOptional = 1
    /// Level 2: without UV, usable only when its id is in the allow list.
    case userVerificationOptionalWithCredentialIDList = 2
    /// Level 3: never used or revealed without UV.
    case userVerificationRequired = 3

    /// The WebAuthn `credentialProtectionPolicy` name (CTAP 2.1 §12.1).
    public var name: String {
        switch self {
        case .userVerificationOptional: return "userVerificationOptional"
        case .userVerificationOptionalWithCredentialIDList: return "userVerificationOptionalWithCredentialIDList"
        case .userVerificationRequired: return "userVerificationRequired"
        }
    }

    /// The policy a WebAuthn name stands for, or `nil`.
    public init?(name: String) {
        guard let policy = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = policy
    }
}

/// The CTAP extensions a ``SoftwareAuthenticator`` supports.
public struct AuthenticatorExtensions: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Creates a set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `hmac-secret` (CTAP 2.1 §12.5), which the WebAuthn `prf` extension runs on.
    public static let hmacSecret = AuthenticatorExtensions(rawValue: 1 << 0)
    /// `credProtect` (CTAP 2.1 §12.1).
    public static let credentialProtection = AuthenticatorExtensions(rawValue: 1 << 1)
    /// Every extension this authenticator implements.
    public static let all: AuthenticatorExtensions = [.hmacSecret, .credentialProtection]
}
