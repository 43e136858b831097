import Crypto
import Foundation
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthnTypes

/// Verifies a new credential: the registration ceremony of
/// [WebAuthn Level 3 §7.1](https://www.w3.org/TR/webauthn-3/#sctn-registering-a-new-credential),
/// steps 5 to 28. Step 29, storing the record, is the caller's.
///
/// ```swift
/// let verifier = RegistrationVerifier(policy: policy)
/// let result = try await verifier.verify(response, expectedChallenge: challenge)
/// store(result.record)
/// ```
public struct RegistrationVerifier: Sendable {
    /// The relying party's policy.
    public let policy: RelyingPartyPolicy

    /// Creates a verifier for `policy`.
    public init(policy: RelyingPartyPolicy) {
        self.policy = policy
    }

    /// Runs §7.1 steps 5–28 over `response`.
    ///
    /// - Parameters:
    ///   - response: the `RegistrationResponseJSON` the client sent.
    ///   - expectedChallenge: the challenge the relying party issued for this ceremony.
    ///   - userHandle: the user handle in the creation options, kept in the record.
    ///   - userVerification: overrides the policy's requirement for this ceremony.
    ///   - time: the time certificates must be valid at.
    ///   - isRegistered: answers whether a credential id is already registered (step 26).
    /// - Throws: `WebAuthnError` naming the failed step, or what `isRegistered` throws.
    public func verify(
        _ response: RegistrationResponseJSON, expectedChallenge: [UInt8], userHandle: [UInt8] = [],
        userVerification: UserVerificationRequirement? = nil, at time: Date = Date(),
        isRegistered: (_ credentialID: [UInt8]) async throws -> Bool = { _ in false }
    ) async throws -> VerifiedRegistration {
        try CredentialResponseChecks.check(id: response.id, rawId: response.rawId, type: response.type)

        // Steps 5–6: decode clientDataJSON as UTF-8 (stripping a BOM) and parse it.
        let clientData = try CollectedClientData(
            bytes: response.response.clientDataJSON.bytes, decodeStep: "7.1 step 5", parseStep: "7.1 step 6")

        // Steps 7–11: type, challenge, origin, crossOrigin, topOrigin.
        try ClientDataVerification(
            expectedType: CollectedClientData.createType, expectedChallenge: expectedChallenge,
            origins: policy.origins, steps: .registration
        ).verify(clientData)

        // Step 12: hash the client data as received.
        let clientDataHash = Array(SHA256.hash(data: response.response.clientDataJSON.bytes))

        // Step 13: decode the attestation object.
        let attestation = try AttestationObject(bytes: response.response.attestationObject.bytes)
        let authData = attestation.authenticatorData

        // Step 14: the credential is scoped to our RP ID.
        guard constantTimeEqual(authData.rpIDHash, policy.rpIDHash) else {
            throw WebAuthnError(.rpIDMismatch, "rpIdHash is not SHA-256 of \"\(policy.rpID)\"", step: "7.1 step 14")
        }
        // Step 15: the user was present.
        if policy.requireUserPresence, !authData.flags.isUserPresent {
            throw WebAuthnError(.userNotPresent, "the UP flag is not set", step: "7.1 step 15")
        }
        // Step 16: the user was verified when that is required.
        if (userVerification ?? policy.userVerification) == .required, !authData.flags.isUserVerified {
            throw WebAuthnError(
                .userNotVerified, "user verification is required and the UV flag is not set", step: "7.1 step 16")
        }
        // Step 17: BS may only be set when BE is.
        if !authData.flags.isBackupEligible, authData.flags.isBackedUp {
            throw WebAuthnError(.invalidBackupFlags, "BS is set while BE is not", step: "7.1 step 17")
        }
        // Steps 18–19: the relying party's backup policy.
        if policy.backup == .singleDeviceOnly, authData.flags.isBackupEligible {
            throw WebAuthnError(
                .backupStateNotAllowed, "only single-device credentials are accepted and BE is set", step: "7.1 step 18"
            )
        }
        guard let credential = authData.attestedCredentialData else {
            throw WebAuthnError(
                .malformedResponse, "authenticator data has no attested credential data", step: "7.1 step 13")
        }
        // Step 20: the key's algorithm is one we offered.
        guard policy.algorithms.contains(credential.publicKey.algorithm) else {
            throw WebAuthnError(
                .algorithmNotAllowed, "algorithm \(credential.publicKey.algorithm) was not offered", step: "7.1 step 20"
            )
        }
        // Step 21: the attestation format is known (exact, case-sensitive match).
        guard let formatVerifier = policy.attestationFormats.verifier(for: attestation.format) else {
            throw WebAuthnError(
                .unsupportedAttestationFormat, "attestation format \"\(attestation.format)\" is not supported",
                step: "7.1 step 21")
        }
        // Step 22: the attestation statement verifies.
        let statement = try formatVerifier.verify(
            statement: attestation.statement, authenticatorData: authData, clientDataHash: clientDataHash, at: time)
        // Step 23: the trust anchors for this format and model, the AAGUID that counts and
        // whether the attestation proves it, and what metadata says of the model: a revoked
        // model is refused whether the attestation proves its AAGUID or only claims it.
        // One BLOB for the whole decision, even when a newer one is downloaded meanwhile.
        let anchors = policy.trustAnchors.pinned()
        let assessment = await anchors.evaluate(
            statement, format: attestation.format, aaguid: credential.aaguid, at: time)
        if let (aaguid, report) = anchors.metadata?.refusingReport(
            for: [assessment.aaguid, credential.aaguid], at: time)
        {
            throw WebAuthnError(
                .authenticatorRevoked,
                "FIDO metadata reports authenticator model \(AAGUID.string(aaguid)) as \(report.status)",
                step: "7.1 step 23")
        }
        // Step 24: apply the relying party's policy to the trust and the proven AAGUID.
        if let refusal = policy.attestation.refusal(assessment, claimedAAGUID: credential.aaguid) {
            throw WebAuthnError(.untrustedAttestation, refusal, step: "7.1 step 24")
        }
        // Step 25: the credential id is at most 1023 bytes.
        guard credential.credentialID.count <= 1023 else {
            throw WebAuthnError(
                .credentialIDTooLong,
                "credential id is \(credential.credentialID.count) bytes, at most 1023 are allowed",
                step: "7.1 step 25")
        }
        guard credential.credentialID == response.rawId.bytes else {
            throw WebAuthnError(.credentialMismatch, "rawId differs from the credential id in authenticator data")
        }
        // Step 26: the credential id is not registered to anyone yet.
        if try await isRegistered(credential.credentialID) {
            throw WebAuthnError(
                .credentialAlreadyRegistered, "this credential is already registered", step: "7.1 step 26")
        }
        // Step 27: the credential record, with the AAGUID that counts (zero for fido-u2f).
        let record = CredentialRecord(
            id: credential.credentialID, publicKey: credential.publicKey, signCount: authData.signCount,
            userHandle: userHandle, uvInitialized: authData.flags.isUserVerified,
            transports: response.response.transports ?? [], backupEligible: authData.flags.isBackupEligible,
            backupState: authData.flags.isBackedUp, aaguid: assessment.aaguid)
        // Step 28: authenticator extension outputs are returned for the caller's extensions.
        return VerifiedRegistration(
            record: record, format: attestation.format,
            attestation: AttestationResult(
                format: attestation.format, type: statement.type, trust: assessment.trust,
                trustPath: statement.trustPath,
                authenticatorName: anchors.metadata?.entry(for: assessment.aaguid)?.description
                    ?? PasskeyProviders.name(for: assessment.aaguid),
                aaguid: assessment.aaguid, aaguidProof: assessment.aaguidProof),
            authenticatorData: authData, clientData: clientData,
            clientExtensionResults: response.clientExtensionResults)
    }
}

/// A registration that passed every step: the record to store and what was learned.
public struct VerifiedRegistration: Sendable {
    /// The credential record to store (§7.1 step 27).
    public let record: CredentialRecord
    /// The attestation statement format.
    public let format: String
    /// The attestation type and trust conclusion.
    public let attestation: AttestationResult
    /// The authenticator data, for flags and extension outputs.
    public let authenticatorData: AuthenticatorData
    /// The client data.
    public let clientData: CollectedClientData
    /// The client extension outputs.
    public let clientExtensionResults: [String: JSONValue]
}

/// Checks every `PublicKeyCredential` must pass before the ceremony steps.
enum CredentialResponseChecks {
    static func check(id: String, rawId: Base64URLBytes, type: PublicKeyCredentialType) throws(WebAuthnError) {
        guard type == .publicKey else {
            throw WebAuthnError(.credentialMismatch, "credential type is \"\(type.rawValue)\", expected \"public-key\"")
        }
        guard Base64URL.decode(id) == rawId.bytes else {
            throw WebAuthnError(.credentialMismatch, "id is not the base64url encoding of rawId")
        }
    }
}
