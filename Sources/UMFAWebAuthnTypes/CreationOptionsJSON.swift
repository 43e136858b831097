import UMFAEncoding

/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn L3 §5.4): what a relying party sends to
/// start a registration, in the form `PublicKeyCredential.parseCreationOptionsFromJSON()` reads.
public struct CreationOptionsJSON: Codable, Hashable, Sendable {
    /// The relying party.
    public var rp: RelyingPartyEntity
    /// The user account.
    public var user: UserEntity
    /// The challenge, at least 16 random bytes (UMFA uses 32).
    public var challenge: Base64URLBytes
    /// Acceptable algorithms, most preferred first.
    public var pubKeyCredParams: [CredentialParameters]
    /// A time limit in milliseconds.
    public var timeout: UInt32?
    /// Credentials the account already has, which must not be registered again.
    public var excludeCredentials: [CredentialDescriptor]?
    /// Which authenticators may take part.
    public var authenticatorSelection: AuthenticatorSelectionCriteria?
    /// Hints for the user agent's interface.
    public var hints: [String]?
    /// The attestation wanted.
    public var attestation: AttestationConveyancePreference?
    /// Preferred attestation statement formats.
    public var attestationFormats: [String]?
    /// Extension inputs.
    public var extensions: [String: JSONValue]?

    /// Creates options.
    public init(
        rp: RelyingPartyEntity, user: UserEntity, challenge: Base64URLBytes,
        pubKeyCredParams: [CredentialParameters], timeout: UInt32? = nil,
        excludeCredentials: [CredentialDescriptor]? = nil,
        authenticatorSelection: AuthenticatorSelectionCriteria? = nil, hints: [String]? = nil,
        attestation: AttestationConveyancePreference? = nil, attestationFormats: [String]? = nil,
        extensions: [String: JSONValue]? = nil
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.hints = hints
        self.attestation = attestation
        self.attestationFormats = attestationFormats
        self.extensions = extensions
    }
}

/// `PublicKeyCredentialRequestOptionsJSON` (WebAuthn L3 §5.5): what a relying party sends to
/// start an authentication, in the form `PublicKeyCredential.parseRequestOptionsFromJSON()` reads.
public struct RequestOptionsJSON: Codable, Hashable, Sendable {
    /// The challenge, at least 16 random bytes (UMFA uses 32).
    public var challenge: Base64URLBytes
    /// A time limit in milliseconds.
    public var timeout: UInt32?
    /// The RP ID; absent means the caller's effective domain.
    public var rpId: String?
    /// The credentials that may answer; empty or absent lets a discoverable credential answer.
    public var allowCredentials: [CredentialDescriptor]?
    /// Whether the user must be verified.
    public var userVerification: UserVerificationRequirement?
    /// Hints for the user agent's interface.
    public var hints: [String]?
    /// Extension inputs.
    public var extensions: [String: JSONValue]?

    /// Creates options.
    public init(
        challenge: Base64URLBytes, timeout: UInt32? = nil, rpId: String? = nil,
        allowCredentials: [CredentialDescriptor]? = nil,
        userVerification: UserVerificationRequirement? = nil, hints: [String]? = nil,
        extensions: [String: JSONValue]? = nil
    ) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
        self.extensions = extensions
    }
}
