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
    /// The model's name from FIDO metadata, such as "YubiKey 5 Series with NFC", when the
    /// relying party loaded metadata that lists the AAGUID.
    public let authenticatorName: String?

    /// Creates a result.
    public init(
        format: String, type: AttestationType, trust: AttestationTrust, trustPath: [Certificate],
        authenticatorName: String? = nil
    ) {
        self.format = format
        self.type = type
        self.trust = trust
        self.trustPath = trustPath
        self.authenticatorName = authenticatorName
    }
}

/// What one attestation statement format proved before trust is assessed (§7.1 step 22).
public struct VerifiedAttestationStatement: Sendable {
    /// The attestation type.
    public let type: AttestationType
    /// The certificates the statement carried, leaf first.
    public let trustPath: [Certificate]
    /// For `compound`: each sub-statement, verified by its own format.
    public let components: [VerifiedAttestationComponent]

    /// Creates a verified statement.
    public init(type: AttestationType, trustPath: [Certificate], components: [VerifiedAttestationComponent] = []) {
        self.type = type
        self.trustPath = trustPath
        self.components = components
    }
}

/// One verified sub-statement of a `compound` attestation (§8.9).
public struct VerifiedAttestationComponent: Sendable {
    /// The sub-statement's format.
    public let format: String
    /// What it proved.
    public let statement: VerifiedAttestationStatement

    /// Creates a component.
    public init(format: String, statement: VerifiedAttestationStatement) {
        self.format = format
        self.statement = statement
    }
}
