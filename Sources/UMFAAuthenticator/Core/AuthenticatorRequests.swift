import UMFAWebAuthn
import UMFAWebAuthnTypes

/// The attestation the authenticator gives for a new credential.
public enum AttestationStyle: String, Sendable, Hashable {
    /// An empty `none` statement.
    case none
    /// A `packed` self attestation signed by the new credential's key.
    case packedSelf
}

/// The inputs of authenticatorMakeCredential (CTAP 2.1 §6.1), as a client passes them on.
public struct MakeCredentialRequest: Sendable {
    /// SHA-256 of the client data JSON.
    public var clientDataHash: [UInt8]
    /// The RP ID the credential will be scoped to.
    public var rpID: String
    /// The user account.
    public var user: UserEntity
    /// Acceptable algorithms, most preferred first.
    public var algorithms: [COSEAlgorithm]
    /// Credential ids that must not be registered again on this authenticator.
    public var excludeCredentialIDs: [[UInt8]]
    /// Whether the credential must be discoverable.
    public var requireResidentKey: Bool
    /// Whether the user must be verified.
    public var requireUserVerification: Bool
    /// The attestation to return.
    public var attestation: AttestationStyle
    /// Whether the relying party asked for the `uvm` extension (how the user was verified).
    public var userVerificationMethodRequested: Bool

    /// Creates a request.
    public init(
        clientDataHash: [UInt8], rpID: String, user: UserEntity, algorithms: [COSEAlgorithm],
        excludeCredentialIDs: [[UInt8]] = [], requireResidentKey: Bool = false,
        requireUserVerification: Bool = false, attestation: AttestationStyle = .none,
        userVerificationMethodRequested: Bool = false
    ) {
        self.clientDataHash = clientDataHash
        self.rpID = rpID
        self.user = user
        self.algorithms = algorithms
        self.excludeCredentialIDs = excludeCredentialIDs
        self.requireResidentKey = requireResidentKey
        self.requireUserVerification = requireUserVerification
        self.attestation = attestation
        self.userVerificationMethodRequested = userVerificationMethodRequested
    }
}

/// What authenticatorMakeCredential returns.
public struct MakeCredentialResult: Sendable {
    /// The new credential's id.
    public let credentialID: [UInt8]
    /// The attestation object.
    public let attestationObject: AttestationObject
    /// The new credential's public key.
    public let publicKey: COSEKey
}

/// The inputs of authenticatorGetAssertion (CTAP 2.1 §6.2), as a client passes them on.
public struct GetAssertionRequest: Sendable {
    /// SHA-256 of the client data JSON.
    public var clientDataHash: [UInt8]
    /// The RP ID.
    public var rpID: String
    /// Credential ids that may answer; empty lets a discoverable credential answer.
    public var allowCredentialIDs: [[UInt8]]
    /// Whether the user must be verified.
    public var requireUserVerification: Bool
    /// Whether the relying party asked for the `uvm` extension (how the user was verified).
    public var userVerificationMethodRequested: Bool

    /// Creates a request.
    public init(
        clientDataHash: [UInt8], rpID: String, allowCredentialIDs: [[UInt8]] = [],
        requireUserVerification: Bool = false, userVerificationMethodRequested: Bool = false
    ) {
        self.clientDataHash = clientDataHash
        self.rpID = rpID
        self.allowCredentialIDs = allowCredentialIDs
        self.requireUserVerification = requireUserVerification
        self.userVerificationMethodRequested = userVerificationMethodRequested
    }
}

/// What authenticatorGetAssertion returns.
public struct GetAssertionResult: Sendable {
    /// The id of the credential that signed.
    public let credentialID: [UInt8]
    /// The authenticator data that was signed.
    public let authenticatorData: AuthenticatorData
    /// The DER-encoded ECDSA signature over authenticatorData ‖ clientDataHash.
    public let signature: [UInt8]
    /// The user handle stored with the credential.
    public let userHandle: [UInt8]
}
