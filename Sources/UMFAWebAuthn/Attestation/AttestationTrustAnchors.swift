import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// The certificates a relying party trusts as attestation roots (§7.1 step 23): for every
/// format, for one format, for one authenticator model (AAGUID), and from FIDO metadata.
public struct AttestationTrustAnchors: Sendable {
    /// Roots accepted for any format.
    public var roots: [Certificate]
    /// Roots accepted only for one format, by format identifier.
    public var rootsByFormat: [String: [Certificate]]
    /// Roots accepted only for one authenticator model, by AAGUID (lower-case UUID string).
    public var rootsByAAGUID: [String: [Certificate]]
    /// FIDO metadata: its entries' attestation roots vouch for their AAGUID, and their status
    /// reports can revoke a model.
    public var metadata: MetadataIndex?
    /// FIDO metadata that a running server replaces when it downloads a newer BLOB: when set,
    /// its current index is used instead of ``metadata`` (see ``currentMetadata``).
    public var liveMetadata: LiveMetadata?

    /// Creates a set of anchors; none by default, so no attestation is ever called trusted
    /// unless the operator configured a root for it.
    public init(
        roots: [Certificate] = [], rootsByFormat: [String: [Certificate]] = [:],
        rootsByAAGUID: [String: [Certificate]] = [:], metadata: MetadataIndex? = nil
    ) {
        self.roots = roots
        self.rootsByFormat = rootsByFormat
        self.rootsByAAGUID = rootsByAAGUID
        self.metadata = metadata
    }

    /// The FIDO metadata in force now: ``liveMetadata``'s index when it is set, else ``metadata``.
    public var currentMetadata: MetadataIndex? {
        liveMetadata.map(\.current) ?? metadata
    }

    /// These anchors with the metadata in force now fixed in ``metadata``, so one verification
    /// reads one BLOB from start to end even when a newer one arrives meanwhile.
    func pinned() -> AttestationTrustAnchors {
        var pinned = self
        pinned.metadata = currentMetadata
        pinned.liveMetadata = nil
        return pinned
    }

    /// Every root that may end a chain for `format`: the roots for any format and for `format`,
    /// plus, when `aaguid` is given, the roots named for that model (``modelRoots(for:)``).
    public func roots(for format: String, aaguid: [UInt8]? = nil) -> [Certificate] {
        roots + (rootsByFormat[format] ?? []) + (aaguid.map(modelRoots(for:)) ?? [])
    }

    /// The roots named for the model `aaguid`: ``rootsByAAGUID`` and the FIDO metadata entry's
    /// `attestationRootCertificates`. A chain must end at one of them for the AAGUID to count
    /// as proven whenever there are any.
    public func modelRoots(for aaguid: [UInt8]) -> [Certificate] {
        (rootsByAAGUID[AAGUID.string(aaguid)] ?? []) + (currentMetadata?.entry(for: aaguid)?.attestationRoots ?? [])
    }

    /// Steps 23–24: decides whether a verified statement's chain ends at a configured root,
    /// checking every certificate's validity at `time`; ``evaluate(_:format:aaguid:at:)``
    /// also says whether the AAGUID is proven.
    public func assess(
        _ statement: VerifiedAttestationStatement, format: String, aaguid: [UInt8]? = nil, at time: Date
    ) async -> AttestationTrust {
        await evaluate(statement, format: format, aaguid: aaguid ?? [], at: time).trust
    }

    /// Steps 23–24: whether a verified statement's chain ends at a configured root (checking
    /// every certificate's validity at `time`), the AAGUID that counts, and whether the
    /// attestation proves it (see ``AAGUIDProof`` for the rules). `aaguid` is the one in
    /// authenticator data. A `compound` statement is trusted when one of its sub-statements
    /// is, and proves the AAGUID when one of them does.
    public func evaluate(
        _ statement: VerifiedAttestationStatement, format: String, aaguid: [UInt8], at time: Date
    ) async -> AttestationAssessment {
        if !statement.components.isEmpty {
            return await evaluateCompound(statement.components, aaguid: aaguid, at: time)
        }
        let counted: [UInt8]
        switch statement.aaguid {
        case .fixed(let fixed): counted = fixed
        case .certified, .claimed: counted = aaguid
        }
        func unproven(_ trust: AttestationTrust, _ reason: String) -> AttestationAssessment {
            AttestationAssessment(trust: trust, aaguid: counted, aaguidProof: .unproven(reason: reason))
        }
        switch statement.type {
        case .none: return unproven(.none, "a none attestation proves no authenticator model")
        case .self: return unproven(.selfAttested, "self attestation proves no authenticator model")
        default: break
        }
        guard let leaf = statement.trustPath.first else {
            return unproven(.untrusted(reason: "the statement carried no certificate"), "no certificate chain")
        }
        let intermediates = Array(statement.trustPath.dropFirst())
        let named = modelRoots(for: counted)
        let anchors = roots + (rootsByFormat[format] ?? []) + named
        guard !anchors.isEmpty else {
            return unproven(.untrusted(reason: "no trust anchor is configured for \(format)"), "no trusted chain")
        }
        let chain = await Self.validate(leaf, intermediates, to: anchors, at: time)
        guard case .trusted = chain.trust else {
            return unproven(chain.trust, "the certificate chain is not trusted")
        }
        let model = AAGUID.string(counted)
        if !named.isEmpty {
            // Roots are named for this model: the chain must end at one of them. The chain found
            // may end elsewhere while another path reaches a named root, so look again.
            if let root = chain.root, named.contains(root) {
                return AttestationAssessment(trust: chain.trust, aaguid: counted, aaguidProof: .modelRoots)
            }
            let modelTrust = await Self.validate(leaf, intermediates, to: named, at: time)
            if case .trusted = modelTrust.trust {
                return AttestationAssessment(trust: modelTrust.trust, aaguid: counted, aaguidProof: .modelRoots)
            }
            return unproven(
                chain.trust,
                "the chain does not end at a root that FIDO metadata or the relying party names for model \(model)")
        }
        switch statement.aaguid {
        case .fixed:
            return AttestationAssessment(trust: chain.trust, aaguid: counted, aaguidProof: .format)
        case .certified(let certified) where certified == counted:
            return AttestationAssessment(trust: chain.trust, aaguid: counted, aaguidProof: .certificateExtension)
        case .certified, .claimed:
            return unproven(
                chain.trust,
                "the attestation certificate does not state model \(model) and no root is named for it")
        }
    }

    /// A `compound` statement: trusted when a sub-statement is, proving the AAGUID when a
    /// sub-statement proves authenticator data's AAGUID (a `fido-u2f` one proves only zero).
    private func evaluateCompound(
        _ components: [VerifiedAttestationComponent], aaguid: [UInt8], at time: Date
    ) async -> AttestationAssessment {
        var reasons: [String] = []
        var unprovenReasons: [String] = []
        var best: AttestationTrust = .none
        var trusted: AttestationTrust?
        for component in components {
            let assessment = await evaluate(component.statement, format: component.format, aaguid: aaguid, at: time)
            if assessment.aaguidProof.isProven, assessment.aaguid == aaguid { return assessment }
            if case .unproven(let reason) = assessment.aaguidProof {
                unprovenReasons.append("\(component.format): \(reason)")
            } else {
                unprovenReasons.append("\(component.format): proves another AAGUID")
            }
            switch assessment.trust {
            case .trusted: trusted = trusted ?? assessment.trust
            case .untrusted(let reason): reasons.append("\(component.format): \(reason)")
            case .selfAttested: if case .none = best { best = .selfAttested }
            case .none: break
            }
        }
        let trust = trusted ?? (reasons.isEmpty ? best : .untrusted(reason: reasons.joined(separator: "; ")))
        return AttestationAssessment(
            trust: trust, aaguid: aaguid, aaguidProof: .unproven(reason: unprovenReasons.joined(separator: "; ")))
    }

    /// Whether `chain` (leaf first, then intermediates) ends at a root for `format` (the roots for
    /// any format and for `format`), every certificate valid at `time`. Client attestation
    /// (App Attest, Android key attestation) asks this without a WebAuthn statement around it.
    public func chainTrust(_ chain: [Certificate], format: String, at time: Date) async -> AttestationTrust {
        guard let leaf = chain.first else { return .untrusted(reason: "the chain is empty") }
        let anchors = roots(for: format)
        guard !anchors.isEmpty else { return .untrusted(reason: "no trust anchor is configured for \(format)") }
        return await Self.validate(leaf, Array(chain.dropFirst()), to: anchors, at: time).trust
    }

    /// The most certificates a chain may have (the leaf included). Real attestation chains have
    /// two to five; chain building tries every order of the intermediates that share a name, so a
    /// chain of many copies would cost the server factorial time on a client's say-so.
    package static let chainLimit = 6

    /// Validates the chain from `leaf` to one of `anchors` at `time`: the trust, and the root
    /// the chain found ends at. A chain longer than ``chainLimit`` is not followed.
    private static func validate(
        _ leaf: Certificate, _ intermediates: [Certificate], to anchors: [Certificate], at time: Date
    ) async -> (trust: AttestationTrust, root: Certificate?) {
        guard intermediates.count < chainLimit else {
            return (
                .untrusted(
                    reason:
                        "the certificate chain has \(intermediates.count + 1) certificates; at most \(chainLimit) are followed"
                ), nil
            )
        }
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            AttestationExtensionsPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates))
        switch result {
        case .validCertificate(let chain):
            return (.trusted(anchor: chain.last.map { String(describing: $0.subject) } ?? ""), chain.last)
        case .couldNotValidate(let failures):
            let reason = failures.first.map { String(describing: $0.policyFailureReason) } ?? "no chain to a root"
            return (.untrusted(reason: "certificate chain does not validate: \(reason)"), nil)
        }
    }
}

/// Marks the critical extensions attestation certificates carry as handled, so chain building
/// does not reject them as unknown: the TPM AIK certificate's subject alternative name and
/// extended key usage (which the `tpm` format checks itself) and its certificate policies
/// (informational for attestation; Windows AIK certificates mark them critical).
struct AttestationExtensionsPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.subjectAlternativeName, .X509ExtensionID.extendedKeyUsage, [2, 5, 29, 32],
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        .meetsPolicy
    }
}
