import X509

/// Attestation types (WebAuthn L3 §6.5.3).
public enum AttestationType: String, Sendable, Hashable, Codable {
    /// No attestation statement (`none`).
    case none
    /// Signed by the credential key itself.
    case `self`
    /// Signed by an attestation key shared by a batch of authenticators.
    case basic
    /// Signed by a key certified by an attestation CA (TPM AIK).
    case attCA = "attca"
    /// Signed by an anonymising CA (Apple).
    case anonCA = "anonca"
}

/// What the relying party can conclude about the authenticator's provenance (§7.1 step 24).
public enum AttestationTrust: Sendable, Hashable {
    /// The statement verified and its certificate chain ends at a configured trust anchor.
    case trusted(anchor: String)
    /// The statement verified, but no configured anchor vouches for it (or none were given).
    case untrusted(reason: String)
    /// Self attestation: the signature proves key possession, not provenance.
    case selfAttested
    /// No attestation was given.
    case none

    /// `trusted`, `untrusted`, `self` or `none`, as UMFA's JSON output spells it.
    public var label: String {
        switch self {
        case .trusted: return "trusted"
        case .untrusted: return "untrusted"
        case .selfAttested: return "self"
        case .none: return "none"
        }
    }
}

/// The outcome of checking an attestation statement (§7.1 steps 21–24).
public struct AttestationResult: Sendable {
    /// The statement format.
    public let format: String
    /// The attestation type the statement showed.
    public let type: AttestationType
    /// The trust conclusion.
    public let trust: AttestationTrust
    /// The attestation certificates, leaf first (empty for `none` and self).
    public let trustPath: [Certificate]

    /// Creates a result.
    public init(format: String, type: AttestationType, trust: AttestationTrust, trustPath: [Certificate]) {
        self.format = format
        self.type = type
        self.trust = trust
        self.trustPath = trustPath
    }
}

/// What one attestation statement format proved before trust is assessed (§7.1 step 22).
public struct VerifiedAttestationStatement: Sendable {
    /// The attestation type.
    public let type: AttestationType
    /// The certificates the statement carried, leaf first.
    public let trustPath: [Certificate]

    /// Creates a verified statement.
    public init(type: AttestationType, trustPath: [Certificate]) {
        self.type = type
        self.trustPath = trustPath
    }
}
