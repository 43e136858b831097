import UMFAContract
import UMFAStorage

extension CeremonyPreferences {
    /// Applies the members of `patch` that set these preferences (hints, attestation formats,
    /// credential protection); 400 naming the member when one is malformed.
    mutating func apply(_ patch: ApplicationSettings) throws {
        if let values = patch.hints { hints = try CeremonyExtensions.hints(values, field: "hints") }
        if let formats = patch.attestationFormats {
            // WebAuthn L3 §5.4: identifiers from the IANA registry, most preferred first.
            guard formats.count <= Self.registeredAttestationFormats.count, Set(formats).count == formats.count,
                formats.allSatisfy(Self.registeredAttestationFormats.contains)
            else {
                throw ServiceError.invalid(
                    "attestation_formats must be distinct registered formats: "
                        + Self.registeredAttestationFormats.joined(separator: ", "), field: "attestation_formats")
            }
            attestationFormats = formats
        }
        if let policy = patch.credentialProtectionPolicy {
            guard policy.isEmpty || CredentialProtectionPolicySetting(rawValue: policy) != nil else {
                throw ServiceError.invalid(
                    "credential_protection_policy must be userVerificationOptional, "
                        + "userVerificationOptionalWithCredentialIDList, userVerificationRequired or \"\"",
                    field: "credential_protection_policy")
            }
            credentialProtectionPolicy = CredentialProtectionPolicySetting(rawValue: policy)
        }
        if let enforce = patch.enforceCredentialProtectionPolicy { enforceCredentialProtectionPolicy = enforce }
    }
}
