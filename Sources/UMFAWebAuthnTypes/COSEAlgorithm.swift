/// A COSE algorithm identifier (IANA "COSE Algorithms" registry), as WebAuthn uses them in
/// `pubKeyCredParams`, credential public keys and attestation statements.
public struct COSEAlgorithm: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The registry value.
    public let rawValue: Int
    /// Creates an identifier from its registry value.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// ECDSA with P-256 and SHA-256.
    public static let es256 = COSEAlgorithm(rawValue: -7)
    /// ECDSA with P-384 and SHA-384.
    public static let es384 = COSEAlgorithm(rawValue: -35)
    /// ECDSA with P-521 and SHA-512.
    public static let es512 = COSEAlgorithm(rawValue: -36)
    /// EdDSA (Ed25519 in WebAuthn practice; Ed448 is refused).
    public static let edDSA = COSEAlgorithm(rawValue: -8)
    /// Ed25519 (the fully specified identifier).
    public static let ed25519 = COSEAlgorithm(rawValue: -19)
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    public static let rs256 = COSEAlgorithm(rawValue: -257)
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    public static let rs384 = COSEAlgorithm(rawValue: -258)
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    public static let rs512 = COSEAlgorithm(rawValue: -259)
    /// RSASSA-PSS with SHA-256.
    public static let ps256 = COSEAlgorithm(rawValue: -37)
    /// RSASSA-PSS with SHA-384.
    public static let ps384 = COSEAlgorithm(rawValue: -38)
    /// RSASSA-PSS with SHA-512.
    public static let ps512 = COSEAlgorithm(rawValue: -39)
    /// RSASSA-PKCS1-v1_5 with SHA-1, refused as insecure.
    public static let rs1 = COSEAlgorithm(rawValue: -65535)

    /// Every algorithm UMFA verifies, in the order a relying party should prefer them.
    public static let supported: [COSEAlgorithm] = [
        .es256, .edDSA, .ed25519, .es384, .es512, .ps256, .rs256, .ps384, .ps512, .rs384, .rs512,
    ]

    /// The common name, such as `ES256`.
    public var name: String {
        switch self {
        case .es256: return "ES256"
        case .es384: return "ES384"
        case .es512: return "ES512"
        case .edDSA: return "EdDSA"
        case .ed25519: return "Ed25519"
        case .rs256: return "RS256"
        case .rs384: return "RS384"
        case .rs512: return "RS512"
        case .ps256: return "PS256"
        case .ps384: return "PS384"
        case .ps512: return "PS512"
        case .rs1: return "RS1"
        default: return "COSE(\(rawValue))"
        }
    }

    /// The name and the registry value.
    public var description: String { "\(name) (\(rawValue))" }

    /// Decodes from a single JSON value.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int.self))
    }

    /// Encodes as a single JSON value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
