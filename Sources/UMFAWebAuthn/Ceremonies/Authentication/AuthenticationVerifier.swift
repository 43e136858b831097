import Crypto
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthnTypes

/// Verifies an assertion: the authentication ceremony of
/// [WebAuthn Level 3 §7.2](https://www.w3.org/TR/webauthn-3/#sctn-verifying-assertion),
/// steps 5 to 24. The caller looks the credential record up by `rawId` first and stores the
/// updated record afterwards.
public struct AuthenticationVerifier: Sendable {
    /// The relying party's policy.
    public let policy: RelyingPartyPolicy

    /// Creates a verifier for `policy`.
    public init(policy: RelyingPartyPolicy) {
        self.policy = policy
    }

    /// Runs §7.2 steps 5–24 over `response`.
    ///
    /// - Parameters:
    ///   - response: the `AuthenticationResponseJSON` the client sent.
    ///   - expectedChallenge: the challenge the relying party issued for this ceremony.
    ///   - credential: the stored record whose id is `response.rawId`.
    ///   - allowCredentials: the ids the request options listed; empty when none were.
    ///   - identifiedUserHandle: the user handle of the account identified before the
    ///     ceremony, or `nil` when the user is identified by the response (discoverable).
    ///   - userVerification: overrides the policy's requirement for this ceremony.
    /// - Throws: `WebAuthnError` naming the failed step.
    public func verify(
        _ response: AuthenticationResponseJSON, expectedChallenge: [UInt8], credential: CredentialRecord,
        allowCredentials: [[UInt8]] = [], identifiedUserHandle: [UInt8]? = nil,
        userVerification: UserVerificationRequirement? = nil
    ) throws(WebAuthnError) -> VerifiedAuthentication {
        try CredentialResponseChecks.check(id: response.id, rawId: response.rawId, type: response.type)
        let credentialID = response.rawId.bytes

        // Step 5: the credential is one of allowCredentials, when they were given.
        if !allowCredentials.isEmpty, !allowCredentials.contains(credentialID) {
            throw WebAuthnError(.credentialNotAllowed, "the credential is not in allowCredentials", step: "7.2 step 5")
        }
        // Step 6: the credential belongs to the user; an empty userHandle counts as absent.
        try Self.checkOwnership(
            credentialID: credentialID, record: credential,
            userHandle: response.response.userHandle.flatMap { $0.isEmpty ? nil : $0.bytes },
            identifiedUserHandle: identifiedUserHandle)

        // Steps 8–9: decode and parse the client data.
        let clientData = try CollectedClientData(
            bytes: response.response.clientDataJSON.bytes, decodeStep: "7.2 step 8", parseStep: "7.2 step 9")
        // Steps 10–14: type, challenge, origin, crossOrigin, topOrigin.
        try ClientDataVerification(
            expectedType: CollectedClientData.getType, expectedChallenge: expectedChallenge,
            origins: policy.origins, steps: .authentication
        ).verify(clientData)

        let authData = try AuthenticatorData(bytes: response.response.authenticatorData.bytes)
        // Step 15: the assertion is scoped to our RP ID.
        guard constantTimeEqual(authData.rpIDHash, policy.rpIDHash) else {
            throw WebAuthnError(.rpIDMismatch, "rpIdHash is not SHA-256 of \"\(policy.rpID)\"", step: "7.2 step 15")
        }
        // Step 16: the user was present. Unlike registration (conditional create), an
        // assertion always needs UP, whatever `requireUserPresence` says.
        if !authData.flags.isUserPresent {
            throw WebAuthnError(.userNotPresent, "the UP flag is not set", step: "7.2 step 16")
        }
        // Step 17: the user was verified when that is required.
        if (userVerification ?? policy.userVerification) == .required, !authData.flags.isUserVerified {
            throw WebAuthnError(
                .userNotVerified, "user verification is required and the UV flag is not set", step: "7.2 step 17")
        }
        // Step 18: BS may only be set when BE is.
        if !authData.flags.isBackupEligible, authData.flags.isBackedUp {
            throw WebAuthnError(.invalidBackupFlags, "BS is set while BE is not", step: "7.2 step 18")
        }
        // Step 19: BE never changes after registration.
        if authData.flags.isBackupEligible != credential.backupEligible {
            throw WebAuthnError(
                .invalidBackupFlags, "BE changed since registration (was \(credential.backupEligible))",
                step: "7.2 step 19")
        }
        // Step 20: hash the client data as received.
        let clientDataHash = Array(SHA256.hash(data: response.response.clientDataJSON.bytes))
        // Step 21: the signature over authenticatorData ‖ hash verifies with the stored key.
        guard
            credential.publicKey.isValidSignature(
                response.response.signature.bytes, for: authData.rawBytes + clientDataHash)
        else {
            throw WebAuthnError(.invalidSignature, "the assertion signature does not verify", step: "7.2 step 21")
        }
        // Step 22: the sign counter must grow when either counter is non-zero.
        var cloneWarning = false
        if authData.signCount != 0 || credential.signCount != 0, authData.signCount <= credential.signCount {
            guard policy.signCount == .flagRegression else {
                throw WebAuthnError(
                    .signCountRegression,
                    "sign count \(authData.signCount) is not above the stored \(credential.signCount): the authenticator may be cloned",
                    step: "7.2 step 22")
            }
            cloneWarning = true
        }
        // Step 23: authenticator extension outputs are returned for the caller's extensions.
        // Step 24: the updated record.
        var updated = credential
        updated.signCount = max(authData.signCount, credential.signCount)
        updated.backupState = authData.flags.isBackedUp
        if authData.flags.isUserVerified { updated.uvInitialized = true }
        return VerifiedAuthentication(
            record: updated, authenticatorData: authData, clientData: clientData, cloneWarning: cloneWarning,
            clientExtensionResults: response.clientExtensionResults)
    }

    /// Step 6 of §7.2.
    static func checkOwnership(
        credentialID: [UInt8], record: CredentialRecord, userHandle: [UInt8]?, identifiedUserHandle: [UInt8]?
    ) throws(WebAuthnError) {
        guard record.id == credentialID else {
            throw WebAuthnError(.userHandleMismatch, "the stored record is not this credential's", step: "7.2 step 6")
        }
        if let identifiedUserHandle {
            guard record.userHandle == identifiedUserHandle else {
                throw WebAuthnError(.userHandleMismatch, "the credential belongs to another user", step: "7.2 step 6")
            }
            if let userHandle, userHandle != identifiedUserHandle {
                throw WebAuthnError(.userHandleMismatch, "userHandle is not the identified user's", step: "7.2 step 6")
            }
        } else {
            guard let userHandle else {
                throw WebAuthnError(
                    .userHandleMismatch, "userHandle is required when the user was not identified first",
                    step: "7.2 step 6")
            }
            guard userHandle == record.userHandle else {
                throw WebAuthnError(.userHandleMismatch, "userHandle does not own this credential", step: "7.2 step 6")
            }
        }
    }
}

/// An assertion that passed every step.
public struct VerifiedAuthentication: Sendable {
    /// The credential record with the new sign count, backup state and UV history (§7.2 step 24).
    public let record: CredentialRecord
    /// The authenticator data that was signed, for flags and extension outputs.
    public let authenticatorData: AuthenticatorData
    /// The client data.
    public let clientData: CollectedClientData
    /// Whether the sign counter did not grow and policy let the assertion through anyway.
    public let cloneWarning: Bool
    /// The client extension outputs.
    public let clientExtensionResults: [String: JSONValue]

    /// Whether the user was verified in this assertion.
    public var userVerified: Bool { authenticatorData.flags.isUserVerified }
}
