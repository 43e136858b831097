import UMFAEncoding

/// `PublicKeyCredentialRpEntity` (WebAuthn L3 §5.4.2).
public struct RelyingPartyEntity: Codable, Hashable, Sendable {
    /// The RP ID; absent means the caller's effective domain.
    public var id: String?
    /// A human-palatable name.
    public var name: String

    /// Creates an entity.
    public init(id: String?, name: String) {
        self.id = id
        self.name = name
    }
}

/// `PublicKeyCredentialUserEntityJSON` (WebAuthn L3 §5.4.3).
public struct UserEntity: Codable, Hashable, Sendable {
    /// The user handle: opaque bytes, at most 64, never personal data.
    public var id: Base64URLBytes
    /// An account name such as an e-mail address.
    public var name: String
    /// A human-palatable name.
    public var displayName: String

    /// Creates an entity.
    public init(id: Base64URLBytes, name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// `PublicKeyCredentialParameters` (WebAuthn L3 §5.3).
public struct CredentialParameters: Codable, Hashable, Sendable {
    /// Always `public-key`.
    public var type: PublicKeyCredentialType
    /// The COSE algorithm.
    public var alg: COSEAlgorithm

    /// Creates parameters for a public-key credential with `alg`.
    public init(alg: COSEAlgorithm, type: PublicKeyCredentialType = .publicKey) {
        self.type = type
        self.alg = alg
    }
}

/// `PublicKeyCredentialDescriptorJSON` (WebAuthn L3 §5.8.3).
public struct CredentialDescriptor: Codable, Hashable, Sendable {
    /// Always `public-key`.
    public var type: PublicKeyCredentialType
    /// The credential id.
    public var id: Base64URLBytes
    /// Hints on how the client can reach the authenticator.
    public var transports: [AuthenticatorTransport]?

    /// Creates a descriptor.
    public init(
        id: Base64URLBytes, transports: [AuthenticatorTransport]? = nil,
        type: PublicKeyCredentialType = .publicKey
    ) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

/// `AuthenticatorSelectionCriteria` (WebAuthn L3 §5.4.4).
public struct AuthenticatorSelectionCriteria: Codable, Hashable, Sendable {
    /// Platform or cross-platform authenticators only.
    public var authenticatorAttachment: AuthenticatorAttachment?
    /// Whether a discoverable credential is wanted.
    public var residentKey: ResidentKeyRequirement?
    /// Legacy form of `residentKey == .required`.
    public var requireResidentKey: Bool?
    /// Whether the user must be verified.
    public var userVerification: UserVerificationRequirement?

    /// Creates criteria.
    public init(
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        residentKey: ResidentKeyRequirement? = nil, requireResidentKey: Bool? = nil,
        userVerification: UserVerificationRequirement? = nil
    ) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
    }
}
