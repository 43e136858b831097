import UMFAStorage
import UMFAWebAuthn

/// UMFA's authentication context classes (`acr`, OpenID Connect Core §2), from the weakest:
/// what a sign-in with one passkey proves, named in login tokens, ID tokens and access tokens
/// (docs/oidc-provider.md, "Authentication context and step-up").
///
/// A level reaches every level below it: a request that needs `passkey` is met by `attested`.
enum AuthenticationLevel: String, Codable, Sendable, CaseIterable, Comparable {
    /// A passkey used without user verification: someone held the device.
    case presence = "urn:umfa:acr:presence"
    /// A passkey with user verification (PIN, biometrics): the device's owner was there.
    case passkey = "urn:umfa:acr:passkey"
    /// A hardware-bound passkey (not backup eligible, so it cannot leave its authenticator) whose
    /// attestation chained to the server's attestation roots at registration (never
    /// `android-safetynet`, which vouches for the device, not the key's home), with user
    /// verification.
    case attested = "urn:umfa:acr:attested"

    /// The level a sign-in with `credential` reached; `userVerified` is the assertion's UV flag.
    static func reached(userVerified: Bool, credential: StoredCredential) -> Self {
        guard userVerified else { return .presence }
        return credential.attestationTrusted && !credential.backupEligible ? .attested : .passkey
    }

    /// The level a sign-in with `credential` reached, from the assertion's authenticator data.
    static func reached(_ authenticatorData: AuthenticatorData, credential: StoredCredential) -> Self {
        reached(userVerified: authenticatorData.flags.isUserVerified, credential: credential)
    }

    /// The level an `acr` value names; `nil` for a value UMFA does not define.
    init?(acr: String?) {
        guard let acr, let level = Self(rawValue: acr) else { return nil }
        self = level
    }

    /// The order of the levels.
    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}
