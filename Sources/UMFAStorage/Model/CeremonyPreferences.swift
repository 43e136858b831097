/// A hint an application gives the user agent about which authenticator to offer
/// (`PublicKeyCredentialHint`, WebAuthn L3 §5.8.7).
package enum CredentialHintSetting: String, Sendable, Codable, CaseIterable {
    /// A removable security key.
    case securityKey = "security-key"
    /// The platform authenticator of the device in use.
    case clientDevice = "client-device"
    /// A phone or other device reached over the hybrid transport.
    case hybrid
}

/// The CTAP 2.1 `credProtect` level a registration asks for, as WebAuthn's
/// `credentialProtectionPolicy` extension input names it (CTAP 2.1 §12.1).
package enum CredentialProtectionPolicySetting: String, Sendable, Codable, CaseIterable {
    /// Level 1: the credential answers with or without user verification.
    case userVerificationOptional
    /// Level 2: without user verification only when the caller names its credential id.
    case userVerificationOptionalWithCredentialIDList
    /// Level 3: only with user verification.
    case userVerificationRequired
}

/// What an application's creation and request options ask of the client beyond the
/// ceremony's basics: hints (§5.4 `hints`), preferred attestation formats (§5.4
/// `attestationFormats`) and the credential protection level (CTAP 2.1 `credProtect`).
package struct CeremonyPreferences: Sendable, Hashable {
    /// Hints for the user agent, most preferred first; empty for none.
    package var hints: [CredentialHintSetting]
    /// Attestation statement formats, most preferred first; empty for no preference.
    package var attestationFormats: [String]
    /// The credential protection level registrations ask for; `nil` for none.
    package var credentialProtectionPolicy: CredentialProtectionPolicySetting?
    /// Whether the client must refuse an authenticator that cannot apply the level.
    package var enforceCredentialProtectionPolicy: Bool

    /// The attestation statement format identifiers registered with IANA (WebAuthn L3 §8), the
    /// only ones `attestationFormats` may name.
    package static let registeredAttestationFormats = [
        "packed", "tpm", "android-key", "android-safetynet", "fido-u2f", "apple", "none", "compound",
    ]

    /// Creates preferences; the defaults ask for nothing.
    package init(
        hints: [CredentialHintSetting] = [], attestationFormats: [String] = [],
        credentialProtectionPolicy: CredentialProtectionPolicySetting? = nil,
        enforceCredentialProtectionPolicy: Bool = false
    ) {
        self.hints = hints
        self.attestationFormats = attestationFormats
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
    }
}
