import UMFAWebAuthnModel
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
    /// Whether the client asked for `hmac-secret` (CTAP 2.1 §12.5), as it does for `prf`.
    public var hmacSecretRequested: Bool
    /// Salts to evaluate at creation (`hmac-secret-mc`, CTAP 2.2), as `prf.eval` at create asks.
    public var hmacSecretSalts: HMACSecretSalts?
    /// The `credProtect` level wanted (CTAP 2.1 §12.1); `nil` when not asked for.
    public var credentialProtection: CredentialProtectionPolicy?

    /// Creates a request.
    public init(
        clientDataHash: [UInt8], rpID: String, user: UserEntity, algorithms: [COSEAlgorithm],
        excludeCredentialIDs: [[UInt8]] = [], requireResidentKey: Bool = false,
        requireUserVerification: Bool = false, attestation: AttestationStyle = .none,
        userVerificationMethodRequested: Bool = false, hmacSecretRequested: Bool = false,
        hmacSecretSalts: HMACSecretSalts? = nil, credentialProtection: CredentialProtectionPolicy? = nil
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
        self.hmacSecretRequested = hmacSecretRequested
        self.hmacSecretSalts = hmacSecretSalts
        self.credentialProtection = credentialProtection
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
    /// Whether the new credential is discoverable (client-side), for `credProps.rk`.
    public let discoverable: Bool
    /// Whether the new credential has hmac-secret CredRandom values, so PRF works with it.
    public let hmacSecret: Bool
    /// The outputs for ``MakeCredentialRequest/hmacSecretSalts``, when given and supported.
    public let hmacSecretOutput: HMACSecretOutput?
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
    /// hmac-secret salts for whichever credential answers (CTAP 2.1 §12.5).
    public var hmacSecretSalts: HMACSecretSalts?
    /// hmac-secret salts for particular credentials, by id; they win over ``hmacSecretSalts``.
    public var hmacSecretSaltsByCredential: [[UInt8]: HMACSecretSalts]

    /// Creates a request.
    public init(
        clientDataHash: [UInt8], rpID: String, allowCredentialIDs: [[UInt8]] = [],
        requireUserVerification: Bool = false, userVerificationMethodRequested: Bool = false,
        hmacSecretSalts: HMACSecretSalts? = nil, hmacSecretSaltsByCredential: [[UInt8]: HMACSecretSalts] = [:]
    ) {
        self.clientDataHash = clientDataHash
        self.rpID = rpID
        self.allowCredentialIDs = allowCredentialIDs
        self.requireUserVerification = requireUserVerification
        self.userVerificationMethodRequested = userVerificationMethodRequested
        self.hmacSecretSalts = hmacSecretSalts
        self.hmacSecretSaltsByCredential = hmacSecretSaltsByCredential
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
    /// The hmac-secret outputs, when salts were given and the credential has CredRandom.
    /// They go to the client only, never into the signed authenticator data, so the relying
    /// party never sees them (CTAP encrypts them for the platform for the same reason).
    public let hmacSecretOutput: HMACSecretOutput?
}
