import Foundation
import UMFACBOR

/// Verifies one attestation statement format (WebAuthn L3 §8).
///
/// A verifier checks the statement's syntax and signature and reports the attestation type
/// and certificates; whether those certificates are trusted is decided afterwards against
/// ``AttestationTrustAnchors``.
public protocol AttestationFormatVerifier: Sendable {
    /// The format identifier, compared case-sensitively (§7.1 step 21).
    var format: String { get }

    /// Checks `statement` over `authenticatorData` and the client data hash; `time` is the
    /// verification time for formats that carry their own timestamps (SafetyNet).
    func verify(
        statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8], at time: Date
    ) throws(WebAuthnError) -> VerifiedAttestationStatement
}

/// The attestation formats a relying party knows, looked up by exact identifier.
public struct AttestationFormatRegistry: Sendable {
    /// The verifiers by format identifier.
    public private(set) var verifiers: [String: any AttestationFormatVerifier]

    /// Creates a registry of the given verifiers.
    public init(_ verifiers: [any AttestationFormatVerifier]) {
        self.verifiers = Dictionary(verifiers.map { ($0.format, $0) }, uniquingKeysWith: { $1 })
    }

    /// Every format WebAuthn L3 §8 defines except `compound`: `none`, `packed`, `fido-u2f`,
    /// `tpm`, `android-key`, `android-safetynet` and `apple`.
    public static let single = AttestationFormatRegistry([
        NoneAttestation(), PackedAttestation(), FIDOU2FAttestation(), TPMAttestation(), AndroidKeyAttestation(),
        AndroidSafetyNetAttestation(), AppleAttestation(),
    ])

    /// Every format WebAuthn L3 §8 defines, `compound` included.
    public static let standard: AttestationFormatRegistry = {
        var registry = single
        registry.register(CompoundAttestation(formats: single))
        return registry
    }()

    /// Adds or replaces a verifier.
    public mutating func register(_ verifier: any AttestationFormatVerifier) {
        verifiers[verifier.format] = verifier
    }

    /// The verifier for `format`, or `nil` when it is unknown.
    public func verifier(for format: String) -> (any AttestationFormatVerifier)? {
        verifiers[format]
    }
}
