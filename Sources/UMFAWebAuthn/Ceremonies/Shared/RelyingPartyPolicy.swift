import UMFAEncoding
import UMFAWebAuthnTypes

/// Everything a relying party decides about the credentials it accepts: its RP ID and
/// origins, user verification, algorithms, attestation, backup and sign-counter rules.
public struct RelyingPartyPolicy: Sendable {
    /// The RP ID credentials are scoped to, such as `example.org`.
    public var rpID: String
    /// The origins ceremonies may run on.
    public var origins: OriginPolicy
    /// Whether user verification is required; only `.required` fails a ceremony without UV.
    public var userVerification: UserVerificationRequirement
    /// Whether the UP flag must be set at registration (false only for conditional-create
    /// registrations, §7.1 step 15); an assertion always needs it (§7.2 step 16).
    public var requireUserPresence: Bool
    /// The algorithms offered in `pubKeyCredParams` and accepted at registration (§7.1 step 20).
    public var algorithms: [COSEAlgorithm]
    /// The attestation formats known (§7.1 step 21).
    public var attestationFormats: AttestationFormatRegistry
    /// The attestation roots (§7.1 step 23).
    public var trustAnchors: AttestationTrustAnchors
    /// Which attestation outcomes are accepted (§7.1 step 24).
    public var attestation: AttestationPolicy
    /// Which backup states are accepted (§7.1 steps 18–19).
    public var backup: BackupPolicy
    /// What a sign-counter regression does (§7.2 step 22).
    public var signCount: SignCountPolicy

    /// Creates a policy with safe defaults: user verification preferred, UP required, every
    /// supported algorithm, every attestation format of §8, no trust anchors (so nothing is called
    /// trusted), any backup state, and sign-counter regressions refused.
    public init(
        rpID: String, origins: OriginPolicy, userVerification: UserVerificationRequirement = .preferred,
        requireUserPresence: Bool = true, algorithms: [COSEAlgorithm] = COSEAlgorithm.supported,
        attestationFormats: AttestationFormatRegistry = .standard,
        trustAnchors: AttestationTrustAnchors = AttestationTrustAnchors(),
        attestation: AttestationPolicy = AttestationPolicy(), backup: BackupPolicy = .any,
        signCount: SignCountPolicy = .refuseRegression
    ) {
        self.rpID = rpID
        self.origins = origins
        self.userVerification = userVerification
        self.requireUserPresence = requireUserPresence
        self.algorithms = algorithms
        self.attestationFormats = attestationFormats
        self.trustAnchors = trustAnchors
        self.attestation = attestation
        self.backup = backup
        self.signCount = signCount
    }
}

/// The origins a relying party expects (§7.1 steps 9–11, §7.2 steps 12–14), matched exactly.
///
/// Web origins look like `https://app.example.com`; native-app origins like
/// `ios:bundle-id:com.example.app` or `android:apk-key-hash:<base64url>`.
public struct OriginPolicy: Sendable, Hashable {
    /// The origins ceremonies may run on.
    public var allowed: Set<String>
    /// Whether a ceremony in a cross-origin iframe is expected.
    public var allowCrossOrigin: Bool
    /// The top-level origins that may embed such an iframe.
    public var allowedTopOrigins: Set<String>

    /// Creates an origin policy; cross-origin iframes are refused unless allowed here.
    public init(allowed: Set<String>, allowCrossOrigin: Bool = false, allowedTopOrigins: Set<String> = []) {
        self.allowed = allowed
        self.allowCrossOrigin = allowCrossOrigin
        self.allowedTopOrigins = allowedTopOrigins
    }

    /// Whether `origin` is one of ``allowed``, byte for byte: a spelling that Unicode calls
    /// equal to an allowed origin is another origin (docs/contract.md §4).
    public func allows(_ origin: String) -> Bool {
        allowed.contains { $0.isSameBytes(as: origin) }
    }

    /// Whether `origin` is one of ``allowedTopOrigins``, byte for byte.
    public func allowsTopOrigin(_ origin: String) -> Bool {
        allowedTopOrigins.contains { $0.isSameBytes(as: origin) }
    }
}

/// Which backup states a relying party accepts (§7.1 steps 18–19).
public enum BackupPolicy: String, Sendable, Hashable {
    /// Single-device and synced (multi-device) credentials alike.
    case any
    /// Only credentials that cannot be backed up (BE = 0), such as device-bound keys.
    case singleDeviceOnly
}

/// What a sign-counter regression does (§7.2 step 22).
///
/// A counter that stays 0 on both sides, as synced passkeys do, is never a regression.
public enum SignCountPolicy: String, Sendable, Hashable {
    /// Refuse the assertion: the authenticator may have been cloned.
    case refuseRegression
    /// Accept the assertion and report ``VerifiedAuthentication/cloneWarning``.
    case flagRegression
}
