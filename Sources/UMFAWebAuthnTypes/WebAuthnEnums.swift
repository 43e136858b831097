/// A string enumeration from the WebAuthn specification that keeps unknown values, as the
/// specification requires clients and relying parties to ignore values they do not know.
public protocol WebAuthnStringValue: RawRepresentable, Codable, Hashable, Sendable,
    ExpressibleByStringLiteral
where RawValue == String {
    /// Creates a value from its string.
    init(rawValue: String)
}

extension WebAuthnStringValue {
    /// Creates a value from a string literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// Decodes from a single JSON value.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as a single JSON value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// `UserVerificationRequirement` (WebAuthn L3 §5.8.6).
public struct UserVerificationRequirement: WebAuthnStringValue {
    /// The string value.
    public let rawValue: String
    /// Creates a value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The ceremony fails unless the user is verified.
    public static let required: Self = "required"
    /// Verification is wanted but its absence does not fail the ceremony.
    public static let preferred: Self = "preferred"
    /// Verification is not wanted.
    public static let discouraged: Self = "discouraged"
}

/// `AttestationConveyancePreference` (WebAuthn L3 §5.4.7).
public struct AttestationConveyancePreference: WebAuthnStringValue {
    /// The string value.
    public let rawValue: String
    /// Creates a value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// No attestation statement is wanted.
    public static let none: Self = "none"
    /// An attestation that may be anonymised by the client.
    public static let indirect: Self = "indirect"
    /// The authenticator's own attestation statement.
    public static let direct: Self = "direct"
    /// An attestation that may uniquely identify the authenticator.
    public static let enterprise: Self = "enterprise"
}

/// `ResidentKeyRequirement` (WebAuthn L3 §5.4.6).
public struct ResidentKeyRequirement: WebAuthnStringValue {
    /// The string value.
    public let rawValue: String
    /// Creates a value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A discoverable credential is required.
    public static let required: Self = "required"
    /// A discoverable credential is preferred.
    public static let preferred: Self = "preferred"
    /// A server-side credential is preferred.
    public static let discouraged: Self = "discouraged"
}

/// `AuthenticatorAttachment` (WebAuthn L3 §5.4.5).
public struct AuthenticatorAttachment: WebAuthnStringValue {
    /// The string value.
    public let rawValue: String
    /// Creates a value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Built into the client device.
    public static let platform: Self = "platform"
    /// Removable or reached over a transport.
    public static let crossPlatform: Self = "cross-platform"
}

/// `AuthenticatorTransport` (WebAuthn L3 §5.8.4).
public struct AuthenticatorTransport: WebAuthnStringValue {
    /// The string value.
    public let rawValue: String
    /// Creates a value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// USB.
    public static let usb: Self = "usb"
    /// NFC.
    public static let nfc: Self = "nfc"
    /// Bluetooth Low Energy.
    public static let ble: Self = "ble"
    /// Smart card.
    public static let smartCard: Self = "smart-card"
    /// Cross-device (hybrid) transport.
    public static let hybrid: Self = "hybrid"
    /// Platform authenticator inside the client device.
    public static let `internal`: Self = "internal"
}

/// `PublicKeyCredentialType` (WebAuthn L3 §5.8.2); only `public-key` exists today.
public struct PublicKeyCredentialType: WebAuthnStringValue {
    /// The string value.
    public let rawValue: String
    /// Creates a value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A public key credential.
    public static let publicKey: Self = "public-key"
}
