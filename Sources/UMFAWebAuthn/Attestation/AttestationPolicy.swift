/// Which attestation outcomes a relying party accepts at registration (§7.1 step 24).
///
/// AAGUID lists judge the AAGUID an attestation proves (``AAGUIDProof``), not the one an
/// authenticator claims:
/// - an allow list never matches an unproven AAGUID, under any policy: a `none` or self
///   attestation, or a chain that does not prove the model, is refused when an allow list is set;
/// - a deny list matches the proven AAGUID *and* the claimed one (denying is conservative), so
///   claiming a denied model is refused too, and ``requireProvenAAGUID`` keeps a denied model
///   from passing under another, unproven, AAGUID.
public struct AttestationPolicy: Sendable, Hashable {
    /// Accept a `none` attestation.
    public var acceptNone: Bool
    /// Accept self attestation.
    public var acceptSelf: Bool
    /// Accept a statement that verified but whose chain no configured anchor vouches for.
    public var acceptUntrusted: Bool
    /// Refuse a registration whose AAGUID the attestation does not prove, even when its chain is
    /// trusted. ``trustedOnly`` sets it: a chain to a per-format root proves a genuine device of
    /// that kind, and only a proven AAGUID says which model, so FIDO metadata revocation and the
    /// AAGUID lists cannot be dodged by claiming another model.
    public var requireProvenAAGUID: Bool
    /// When set, only these authenticator models (AAGUIDs, lower-case UUID strings) may
    /// register, and only when the attestation proves the AAGUID.
    public var aaguidAllow: Set<String>?
    /// Authenticator models (AAGUIDs, lower-case UUID strings) that may never register, whether
    /// the attestation proves the AAGUID or the authenticator only claims it.
    public var aaguidDeny: Set<String>

    /// Creates a policy; the default accepts every verified outcome and reports which it was.
    public init(
        acceptNone: Bool = true, acceptSelf: Bool = true, acceptUntrusted: Bool = true,
        requireProvenAAGUID: Bool = false, aaguidAllow: Set<String>? = nil, aaguidDeny: Set<String> = []
    ) {
        self.acceptNone = acceptNone
        self.acceptSelf = acceptSelf
        self.acceptUntrusted = acceptUntrusted
        self.requireProvenAAGUID = requireProvenAAGUID
        self.aaguidAllow = aaguidAllow.map { Set($0.map { $0.lowercased() }) }
        self.aaguidDeny = Set(aaguidDeny.map { $0.lowercased() })
    }

    /// Self or trusted attestation only: `none` and unverifiable chains are refused. A trusted
    /// chain whose AAGUID is unproven is accepted (self attestation proves no AAGUID either).
    public static let selfOrTrusted = AttestationPolicy(acceptNone: false, acceptSelf: true, acceptUntrusted: false)

    /// Only statements that chain to a configured anchor *and* prove their AAGUID
    /// (``requireProvenAAGUID``): UMFA's `attestation_policy: trusted`.
    public static let trustedOnly = AttestationPolicy(
        acceptNone: false, acceptSelf: false, acceptUntrusted: false, requireProvenAAGUID: true)

    /// Whether `trust` is acceptable, judging the chain alone.
    public func accepts(_ trust: AttestationTrust) -> Bool {
        switch trust {
        case .trusted: return true
        case .untrusted: return acceptUntrusted
        case .selfAttested: return acceptSelf
        case .none: return acceptNone
        }
    }

    /// Why a registration with `assessment` may not register, or `nil` when this policy accepts
    /// it; `claimedAAGUID` is the AAGUID in authenticator data.
    public func refusal(_ assessment: AttestationAssessment, claimedAAGUID: [UInt8]) -> String? {
        let trust = assessment.trust
        guard accepts(trust) else {
            let detail: String
            if case .untrusted(let reason) = trust { detail = ": \(reason)" } else { detail = "" }
            return "attestation is \(trust.label), which this relying party does not accept\(detail)"
        }
        let key = AAGUID.string(assessment.aaguid)
        if requireProvenAAGUID, case .unproven(let reason) = assessment.aaguidProof {
            return "the attestation does not prove authenticator model \(key): \(reason)"
        }
        for aaguid in [assessment.aaguid, claimedAAGUID] where aaguidDeny.contains(AAGUID.string(aaguid)) {
            return "authenticator model \(AAGUID.string(aaguid)) is on the deny list"
        }
        if let aaguidAllow {
            guard let proven = assessment.provenAAGUID else {
                return "authenticator model \(key) is not proven by the attestation, so it cannot match the allow list"
            }
            guard aaguidAllow.contains(AAGUID.string(proven)) else {
                return "authenticator model \(key) is not on the allow list"
            }
        }
        return nil
    }
}
