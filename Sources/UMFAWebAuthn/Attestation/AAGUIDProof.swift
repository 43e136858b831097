/// What an attestation statement itself says about the authenticator model (AAGUID), before
/// its certificate chain is judged.
public enum StatementAAGUID: Sendable, Hashable {
    /// Nothing: the AAGUID in authenticator data is the authenticator's claim, which only a
    /// chain to roots named for that AAGUID can prove (`none`, self, `android-key`,
    /// `android-safetynet`, `apple`, and `packed` or `tpm` without the extension).
    case claimed
    /// The attestation certificate states this AAGUID in its id-fido-gen-ce-aaguid extension
    /// (1.3.6.1.4.1.45724.1.1.4), already checked equal to authenticator data's (§8.2.1 for
    /// `packed`, §8.3.1 for `tpm`).
    case certified([UInt8])
    /// The format fixes the AAGUID whatever authenticator data says: `fido-u2f`'s is zero
    /// (U2F has no AAGUID, and its signature does not cover authenticator data's).
    case fixed([UInt8])
}

/// How an attestation proved the AAGUID that counts for a registration, or why it did not
/// (docs/contract.md §4: an AAGUID counts only when the attestation proves it).
///
/// Every proof needs a certificate chain that ends at a configured trust anchor at the
/// verification time; on top of that:
/// - When FIDO metadata or ``AttestationTrustAnchors/rootsByAAGUID`` name roots for the AAGUID,
///   the chain must end at one of *those* roots (``modelRoots``); a chain to any other root,
///   even one trusted for the format, leaves the AAGUID unproven.
/// - Otherwise a `packed` or `tpm` attestation certificate whose id-fido-gen-ce-aaguid extension
///   states the AAGUID proves it (``certificateExtension``), and `fido-u2f` proves its zero
///   AAGUID (``format``).
/// - A per-format root (Google, Apple, Microsoft, Yubico) proves that the authenticator is a
///   genuine device of that kind, never which model: `android-key`, `android-safetynet` and
///   `apple` prove their AAGUID only through roots named for it. `none` and self attestation
///   prove nothing.
public enum AAGUIDProof: Sendable, Hashable {
    /// The chain ends at a root that the FIDO metadata entry for the AAGUID (or the relying
    /// party's roots for that AAGUID) names.
    case modelRoots
    /// A trusted `packed` or `tpm` attestation certificate states the AAGUID in its extension.
    case certificateExtension
    /// The format defines the AAGUID (`fido-u2f`: zero) and its chain is trusted.
    case format
    /// Not proven, and why; the AAGUID is only the authenticator's claim.
    case unproven(reason: String)

    /// Whether the AAGUID is proven.
    public var isProven: Bool {
        if case .unproven = self { return false }
        return true
    }

    /// `model_roots`, `certificate_extension`, `format` or `unproven`, as UMFA's JSON output
    /// spells it.
    public var label: String {
        switch self {
        case .modelRoots: return "model_roots"
        case .certificateExtension: return "certificate_extension"
        case .format: return "format"
        case .unproven: return "unproven"
        }
    }
}

/// What §7.1 steps 23–24 conclude of a verified statement: whether its chain is trusted, the
/// AAGUID that counts and whether the attestation proves it.
public struct AttestationAssessment: Sendable, Hashable {
    /// Whether the certificate chain ends at a configured trust anchor.
    public let trust: AttestationTrust
    /// The AAGUID that counts: authenticator data's, except for `fido-u2f`, whose AAGUID is zero.
    public let aaguid: [UInt8]
    /// How ``aaguid`` is proven, or why it is not.
    public let aaguidProof: AAGUIDProof

    /// Creates an assessment.
    public init(trust: AttestationTrust, aaguid: [UInt8], aaguidProof: AAGUIDProof) {
        self.trust = trust
        self.aaguid = aaguid
        self.aaguidProof = aaguidProof
    }

    /// ``aaguid`` when the attestation proves it, otherwise `nil`.
    public var provenAAGUID: [UInt8]? { aaguidProof.isProven ? aaguid : nil }
}

extension AAGUID {
    /// The zero AAGUID: no model named (U2F authenticators, anonymised attestations).
    public static let zero = [UInt8](repeating: 0, count: 16)
}
