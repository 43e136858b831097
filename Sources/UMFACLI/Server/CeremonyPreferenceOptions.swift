import ArgumentParser
import UMFAContract

/// The application settings for what options ask of clients: hints, attestation formats and
/// credential protection (WebAuthn L3 §5.4, CTAP 2.1 `credProtect`).
struct CeremonyPreferenceOptions: ParsableArguments {
    @Option(
        name: .customLong("hint"),
        help: "A hint for the browser (security-key, client-device or hybrid), most preferred first; repeat.")
    var hint: [String] = []

    @Flag(name: .customLong("clear-hints"), help: "Remove every hint.")
    var clearHints = false

    @Option(
        name: .customLong("attestation-format"),
        help: "A preferred attestation format (packed, tpm, android-key, …), most preferred first; repeat.")
    var attestationFormat: [String] = []

    @Flag(name: .customLong("clear-attestation-formats"), help: "Remove the attestation format preference.")
    var clearAttestationFormats = false

    @Option(
        name: .customLong("credential-protection-policy"),
        help:
            "credProtect level registrations ask for: userVerificationOptional, userVerificationOptionalWithCredentialIDList, userVerificationRequired, or \"\" for none."
    )
    var credentialProtectionPolicy: String?

    @Option(
        name: .customLong("enforce-credential-protection-policy"),
        help: "true: browsers refuse authenticators that cannot apply the level; false (default): they may go on.")
    var enforceCredentialProtectionPolicy: Bool?

    /// `request` with these settings added.
    func applied(to request: ApplicationSettingsRequest) throws -> ApplicationSettingsRequest {
        var request = request
        request.hints = try Self.list(hint, clear: clearHints, option: "--hint", flag: "--clear-hints")
        request.attestationFormats = try Self.list(
            attestationFormat, clear: clearAttestationFormats, option: "--attestation-format",
            flag: "--clear-attestation-formats")
        request.credentialProtectionPolicy = credentialProtectionPolicy
        request.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
        return request
    }

    /// The values, `[]` for the clearing flag, `nil` for neither.
    private static func list(_ values: [String], clear: Bool, option: String, flag: String) throws -> [String]? {
        guard clear else { return values.isEmpty ? nil : values }
        guard values.isEmpty else { throw ValidationError("give \(option) or \(flag), not both") }
        return []
    }
}
