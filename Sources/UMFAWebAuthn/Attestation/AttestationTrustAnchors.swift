import Foundation
@_spi(FixedExpiryValidationTime) import X509

/// The certificates a relying party trusts as attestation roots (§7.1 step 23), for every
/// format or for one format only.
public struct AttestationTrustAnchors: Sendable {
    /// Roots accepted for any format.
    public var roots: [Certificate]
    /// Roots accepted only for one format, by format identifier.
    public var rootsByFormat: [String: [Certificate]]

    /// Creates a set of anchors; none by default, so no attestation is ever called trusted
    /// unless the operator configured a root for it.
    public init(roots: [Certificate] = [], rootsByFormat: [String: [Certificate]] = [:]) {
        self.roots = roots
        self.rootsByFormat = rootsByFormat
    }

    /// The roots that apply to `format`.
    public func roots(for format: String) -> [Certificate] {
        roots + (rootsByFormat[format] ?? [])
    }

    /// Steps 23–24: decides whether a verified statement's chain ends at a configured root,
    /// checking every certificate's validity at `time`.
    public func assess(
        _ statement: VerifiedAttestationStatement, format: String, at time: Date
    ) async -> AttestationTrust {
        switch statement.type {
        case .none: return .none
        case .self: return .selfAttested
        default: break
        }
        guard let leaf = statement.trustPath.first else {
            return .untrusted(reason: "the statement carried no certificate")
        }
        let anchors = roots(for: format)
        guard !anchors.isEmpty else {
            return .untrusted(reason: "no trust anchor is configured for \(format)")
        }
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
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

/// Which attestation outcomes a relying party accepts at registration (§7.1 step 24).
public struct AttestationPolicy: Sendable, Hashable {
    /// Accept a `none` attestation.
    public var acceptNone: Bool
    /// Accept self attestation.
    public var acceptSelf: Bool
    /// Accept a statement that verified but whose chain no configured anchor vouches for.
    public var acceptUntrusted: Bool

    /// Creates a policy; the default accepts every verified outcome and reports which it was.
    public init(acceptNone: Bool = true, acceptSelf: Bool = true, acceptUntrusted: Bool = true) {
        self.acceptNone = acceptNone
        self.acceptSelf = acceptSelf
        self.acceptUntrusted = acceptUntrusted
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
