/// Why a WebAuthn response, key or attestation was refused.
///
/// Errors compare by ``code`` only, so callers and tests can match the kind of failure while
/// logs keep the explanation. ``step`` names the verification step of WebAuthn Level 3 that
/// failed, such as `"7.1 step 9"`, when the failure belongs to one.
public struct WebAuthnError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The response or a structure inside it could not be decoded.
        case malformedResponse
        /// `id` and `rawId` disagree, or `type` is not `public-key`.
        case credentialMismatch
        /// `clientDataJSON.type` is not the ceremony's type.
        case wrongCeremonyType
        /// The challenge is not the one the relying party issued.
        case challengeMismatch
        /// The origin is not one of the relying party's origins.
        case originNotAllowed
        /// The ceremony ran in a cross-origin iframe the relying party does not expect.
        case crossOriginNotAllowed
        /// The top-level origin is not one the relying party expects.
        case topOriginNotAllowed
        /// The authenticator data is scoped to another RP ID.
        case rpIDMismatch
        /// The user-present flag is not set.
        case userNotPresent
        /// User verification was required and did not happen.
        case userNotVerified
        /// The backup flags break the rules (BS set without BE, or BE changed).
        case invalidBackupFlags
        /// The relying party's policy refuses this backup state.
        case backupStateNotAllowed
        /// The credential's algorithm is not one the relying party allows.
        case algorithmNotAllowed
        /// The COSE key uses an algorithm, curve or key type UMFA does not support.
        case unsupportedAlgorithm
        /// The COSE key is malformed or does not match its algorithm.
        case invalidPublicKey
        /// The attestation statement format is not known.
        case unsupportedAttestationFormat
        /// The attestation statement does not verify.
        case invalidAttestation
        /// The attestation verified but policy demands a trusted one.
        case untrustedAttestation
        /// The credential id is longer than 1023 bytes.
        case credentialIDTooLong
        /// The credential id is already registered.
        case credentialAlreadyRegistered
        /// The credential is not in `allowCredentials`.
        case credentialNotAllowed
        /// The credential does not belong to the user, or the user handle disagrees.
        case userHandleMismatch
        /// The signature does not verify.
        case invalidSignature
        /// The signature counter went backwards: the authenticator may be cloned.
        case signCountRegression
        /// The extension outputs are not acceptable.
        case invalidExtensions
        /// A FIDO metadata BLOB could not be read or did not verify.
        case invalidMetadata
        /// FIDO metadata reports the authenticator model revoked or compromised.
        case authenticatorRevoked
    }

    /// The kind of failure.
    public let code: Code
    /// A human explanation.
    public let message: String
    /// The WebAuthn Level 3 step that failed, such as `"7.2 step 21"`.
    public let step: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, step: String? = nil) {
        self.code = code
        self.message = message
        self.step = step
    }

    /// The explanation, prefixed with the failed step when known.
    public var description: String {
        if let step { return "\(step): \(message)" }
        return message
    }

    /// The same error attributed to `step` when it names no step of its own yet.
    package func inStep(_ step: String) -> WebAuthnError {
        self.step == nil ? WebAuthnError(code, message, step: step) : self
    }

    /// Compares by code only.
    public static func == (lhs: WebAuthnError, rhs: WebAuthnError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
