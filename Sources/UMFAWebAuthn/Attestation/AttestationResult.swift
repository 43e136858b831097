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
    /// relying party loaded metadata that lists ``aaguid``. When ``aaguidProof`` is unproven it
    /// names only what the authenticator claims to be.
    public let authenticatorName: String?
    /// The AAGUID that counts: authenticator data's, except zero for `fido-u2f`.
    public let aaguid: [UInt8]
    /// How the attestation proves ``aaguid``, or why it does not (docs/contract.md §4).
    public let aaguidProof: AAGUIDProof

    /// Creates a result.
    public init(
        format: String, type: AttestationType, trust: AttestationTrust, trustPath: [Certificate],
        authenticatorName: String? = nil, aaguid: [UInt8] = AAGUID.zero,
        aaguidProof: AAGUIDProof = .unproven(reason: "not assessed")
    ) {
        self.format = format
        self.type = type
        self.trust = trust
        self.trustPath = trustPath
        self.authenticatorName = authenticatorName
        self.aaguid = aaguid
        self.aaguidProof = aaguidProof
    }

    /// Whether the attestation proves ``aaguid``.
    public var aaguidProven: Bool { aaguidProof.isProven }

    /// ``aaguid`` when the attestation proves it, otherwise `nil`: the only AAGUID to base a
    /// security decision on.
    public var provenAAGUID: [UInt8]? { aaguidProven ? aaguid : nil }
}

/// What one attestation statement format proved before trust is assessed (§7.1 step 22).
public struct VerifiedAttestationStatement: Sendable {
    /// The attestation type.
    public let type: AttestationType
    /// The certificates the statement carried, leaf first.
    public let trustPath: [Certificate]
    /// For `compound`: each sub-statement, verified by its own format.
    public let components: [VerifiedAttestationComponent]
    /// What the statement itself says of the AAGUID; its chain decides whether that counts.
    public let aaguid: StatementAAGUID

    /// Creates a verified statement.
    public init(
        type: AttestationType, trustPath: [Certificate], components: [VerifiedAttestationComponent] = [],
        aaguid: StatementAAGUID = .claimed
    ) {
        self.type = type
        self.trustPath = trustPath
        self.components = components
        self.aaguid = aaguid
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
