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

    /// The roots that apply to `format` (and to the model `aaguid`, when given).
    public func roots(for format: String, aaguid: [UInt8]? = nil) -> [Certificate] {
        var anchors = roots + (rootsByFormat[format] ?? [])
        if let aaguid {
            let key = AAGUID.string(aaguid)
            anchors += rootsByAAGUID[key] ?? []
            anchors += metadata?.entry(for: aaguid)?.attestationRoots ?? []
        }
        return anchors
    }

    /// Steps 23–24: decides whether a verified statement's chain ends at a configured root,
    /// checking every certificate's validity at `time`. A `compound` statement is trusted
    /// when one of its sub-statements is.
    public func assess(
        _ statement: VerifiedAttestationStatement, format: String, aaguid: [UInt8]? = nil, at time: Date
    ) async -> AttestationTrust {
        if !statement.components.isEmpty {
            var reasons: [String] = []
            var best: AttestationTrust = .none
            for component in statement.components {
                let trust = await assess(component.statement, format: component.format, aaguid: aaguid, at: time)
                switch trust {
                case .trusted: return trust
                case .untrusted(let reason): reasons.append("\(component.format): \(reason)")
                case .selfAttested: if case .none = best { best = .selfAttested }
                case .none: break
                }
            }
            return reasons.isEmpty ? best : .untrusted(reason: reasons.joined(separator: "; "))
        }
        switch statement.type {
        case .none: return .none
        case .self: return .selfAttested
        default: break
        }
        guard let leaf = statement.trustPath.first else {
            return .untrusted(reason: "the statement carried no certificate")
        }
        let anchors = roots(for: format, aaguid: aaguid)
        guard !anchors.isEmpty else {
            return .untrusted(reason: "no trust anchor is configured for \(format)")
        }
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            AttestationExtensionsPolicy()
        }
        let result = await verifier.validate(
            leaf: leaf, intermediates: CertificateStore(statement.trustPath.dropFirst()))
        switch result {
        case .validCertificate(let chain):
            return .trusted(anchor: chain.last.map { String(describing: $0.subject) } ?? "")
        case .couldNotValidate(let failures):
            let reason = failures.first.map { String(describing: $0.policyFailureReason) } ?? "no chain to a root"
            return .untrusted(reason: "certificate chain does not validate: \(reason)")
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

/// Which attestation outcomes a relying party accepts at registration (§7.1 step 24).
public struct AttestationPolicy: Sendable, Hashable {
    /// Accept a `none` attestation.
    public var acceptNone: Bool
    /// Accept self attestation.
    public var acceptSelf: Bool
    /// Accept a statement that verified but whose chain no configured anchor vouches for.
    public var acceptUntrusted: Bool
    /// When set, only these authenticator models (AAGUIDs, lower-case UUID strings) may
    /// register. With `none` or self attestation the AAGUID is the authenticator's unproven
    /// claim, so an allow list means something only together with ``trustedOnly``.
    public var aaguidAllow: Set<String>?
    /// Authenticator models (AAGUIDs, lower-case UUID strings) that may never register.
    public var aaguidDeny: Set<String>

    /// Creates a policy; the default accepts every verified outcome and reports which it was.
    public init(
        acceptNone: Bool = true, acceptSelf: Bool = true, acceptUntrusted: Bool = true,
        aaguidAllow: Set<String>? = nil, aaguidDeny: Set<String> = []
    ) {
        self.acceptNone = acceptNone
        self.acceptSelf = acceptSelf
        self.acceptUntrusted = acceptUntrusted
        self.aaguidAllow = aaguidAllow.map { Set($0.map { $0.lowercased() }) }
        self.aaguidDeny = Set(aaguidDeny.map { $0.lowercased() })
    }

    /// Self or trusted attestation only: `none` and unverifiable chains are refused.
    public static let selfOrTrusted = AttestationPolicy(acceptNone: false, acceptSelf: true, acceptUntrusted: false)

    /// Why the model `aaguid` may not register, or `nil` when the lists allow it.
    public func refusal(aaguid: [UInt8]) -> String? {
        let key = AAGUID.string(aaguid)
        if aaguidDeny.contains(key) { return "authenticator model \(key) is on the deny list" }
        if let aaguidAllow, !aaguidAllow.contains(key) { return "authenticator model \(key) is not on the allow list" }
        return nil
    }

    /// Only statements that chain to a configured anchor.
    public static let trustedOnly = AttestationPolicy(acceptNone: false, acceptSelf: false, acceptUntrusted: false)

    /// Whether `trust` is acceptable.
    public func accepts(_ trust: AttestationTrust) -> Bool {
        switch trust {
        case .trusted: return true
        case .untrusted: return acceptUntrusted
        case .selfAttested: return acceptSelf
        case .none: return acceptNone
        }
    }
}
