import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Registration (WebAuthn L3 §7.1) for an application's users: options under the enrollment
/// policy, then verification, storage of the credential and a login token. Knows the store,
/// the token service and the clock; nothing of HTTP.
struct RegistrationService: Sendable {
    /// The stores registration uses.
    typealias Store = ApplicationStore & EnrollmentGrant.Store

    let ceremonies: Ceremonies
    let store: any Store
    let loginTokens: LoginTokens

    /// The algorithms offered, in order of preference, and the only ones accepted (§7.1 step 20).
    static let offeredAlgorithms: [COSEAlgorithm] = [.es256, .edDSA, .es384, .ps256, .rs256]

    /// The one answer to every failed registration verification (docs/contract.md §4); the reason is logged.
    static let failureMessage = "Registration failed"

    /// Creation options for `request.userID`, once the enrollment policy allows it; the
    /// challenge is stored bound to the application, the user and the ceremony.
    func options(_ request: RegistrationOptionsRequest, caller: Caller) async throws -> RegistrationOptionsResponse {
        let application = try await store.application(request.applicationID)
        try FieldRules.checkUserID(request.userID)
        try FieldRules.checkName(request.displayName, field: "display_name", maximumBytes: 256)
        let requested = try CeremonyExtensions(hints: request.hints, prf: request.prf, registration: true)
        // Unauthenticated under the open policy, and stores a challenge: limited per address.
        try ceremonies.abuse.countOptionsRequest(caller)
        let existing = try await store.credentials(applicationID: application.id, userID: request.userID)
        let grant = try await EnrollmentGrant(
            store: store, loginTokens: loginTokens, now: ceremonies.now, application: application
        )
        .authorize(
            userID: request.userID, hasCredentials: !existing.isEmpty, enrollmentToken: request.enrollmentToken,
            loginToken: request.token)
        return try await options(
            application: application, userID: request.userID, userName: request.userID,
            displayName: request.displayName ?? request.userID, existing: existing, grant: grant, caller: caller,
            requested: requested)
    }

    /// Creation options for `userID` under a grant already decided (by the enrollment policy, or
    /// by account creation on the hosted pages); `userName` is what the passkey manager shows.
    /// - Parameters:
    ///   - newUserHandle: the user handle of an account being created; such a user is not
    ///     stored here, but with its first passkey (``NewAccount``).
    ///   - requested: the request's own hints and PRF inputs, beside the application's settings.
    func options(
        application: ApplicationRecord, userID: String, userName: String, displayName: String,
        existing: [StoredCredential], grant: EnrollmentGrant.Grant, caller: Caller, challenge given: [UInt8]? = nil,
        expiresAt: Date? = nil, ceremony: CeremonyKind = .registration, newUserHandle: [UInt8]? = nil,
        requested: CeremonyExtensions = CeremonyExtensions()
    ) async throws -> RegistrationOptionsResponse {
        let userHandle: [UInt8]
        if let newUserHandle {
            userHandle = newUserHandle
        } else {
            userHandle = try await store.insertUser(
                UserRecord(
                    applicationID: application.id, userID: userID, userHandle: Secrets.randomBytes(32),
                    displayName: displayName, createdAt: ceremonies.now())
            ).userHandle
        }
        let challenge = given ?? Secrets.randomBytes(32)
        try await store.insertChallenge(
            ChallengeRecord(
                challenge: challenge, applicationID: application.id, userID: userID, ceremony: ceremony,
                userVerification: application.userVerification, userpwTime: grant.userpwTime,
                expiresAt: expiresAt ?? ceremonies.now().addingTimeInterval(ceremonies.challengeLifetime),
                grant: grant.kind,
                enrollmentTokenHash: grant.enrollmentTokenHash))
        let extras = requested.registration(application)
        let options = CreationOptionsJSON(
            rp: RelyingPartyEntity(id: application.rpID, name: application.rpName),
            user: UserEntity(id: Base64URLBytes(userHandle), name: userName, displayName: displayName),
            challenge: Base64URLBytes(challenge),
            pubKeyCredParams: Self.offeredAlgorithms.map { CredentialParameters(alg: $0) },
            timeout: UInt32(ceremonies.challengeLifetime * 1000),
            excludeCredentials: existing.map {
                CredentialDescriptor(
                    id: Base64URLBytes($0.credentialID),
                    transports: $0.transports.map(AuthenticatorTransport.init(rawValue:)))
            },
            authenticatorSelection: AuthenticatorSelectionCriteria(
                residentKey: .preferred, requireResidentKey: false,
                userVerification: UserVerificationRequirement(rawValue: application.userVerification.rawValue)),
            hints: extras.hints,
            attestation: AttestationConveyancePreference(rawValue: application.attestation.rawValue),
            attestationFormats: extras.attestationFormats, extensions: extras.extensions)
        return RegistrationOptionsResponse(traceID: caller.traceID, publicKey: options)
    }

    /// §7.1 under the abuse limits (a failed verification counts against the caller).
    func verify(_ request: RegistrationVerifyRequest, caller: Caller) async throws -> CeremonyResponse {
        let application = try await store.application(request.applicationID)
        let registered = try await register(request, application: application, caller: caller)
        let token = try await loginTokens.issue(
            application: application, credential: registered.credential,
            authenticatorData: registered.authenticatorData, userpwTime: registered.userpwTime)
        return CeremonyResponse(
            traceID: caller.traceID, userID: request.userID,
            credentialID: Base64URL.encode(registered.credential.credentialID), token: token,
            discoverable: registered.credential.discoverable, prfEnabled: registered.credential.prfEnabled)
    }

    /// A user that account creation (docs/contract.md §5, §6) stores together with its first passkey,
    /// once that passkey verified: until then only the challenge and the pending interaction
    /// exist, so options alone leave no user behind.
    struct NewAccount: Sendable {
        /// The user, with the handle its creation options carried.
        let user: UserRecord
        /// Its profile; the email is unique per application (without case).
        let profile: UserProfileRecord
    }

    /// A credential stored by a verified registration, and what its authenticator said.
    struct Registered: Sendable {
        let credential: StoredCredential
        let authenticatorData: AuthenticatorData
        /// When the application last checked the user's password (from an enrollment token).
        let userpwTime: Date?
    }

    /// §7.1 under the abuse limits (a failed verification counts against the caller), the
    /// grant checked again, and the credential stored.
    /// - Parameters:
    ///   - ceremony: the kind of challenge the response must answer (`dispatch/complete`
    ///     answers out-of-band ones, which the ordinary verify route never consumes).
    ///   - account: the account this registration creates (its challenge must be a sign-up one).
    func register(
        _ request: RegistrationVerifyRequest, application: ApplicationRecord, caller: Caller,
        ceremony: CeremonyKind = .registration, account: NewAccount? = nil
    )
        async throws -> Registered
    {
        try FieldRules.checkUserID(request.userID)
        try FieldRules.checkName(request.deviceName, field: "device_name", maximumBytes: 128)
        let registered: Registered
        do {
            registered = try await ceremonies.abuse.ceremony(
                application: application.id, userID: request.userID, caller: caller
            ) {
                try await verifyAndStore(request, application: application, ceremony: ceremony, account: account)
            }
        } catch let error as ServiceError where error.code == .unauthenticated {
            ceremonies.metrics.ceremony("registration", succeeded: false)
            throw ServiceError.unauthenticated(Self.failureMessage, detail: error.message)
        }
        ceremonies.metrics.ceremony("registration", succeeded: true)
        let credential = registered.credential
        var details: [String: JSONValue] = [
            "attestation_format": .string(credential.attestationFormat),
            "aaguid": .string(AAGUID.string(credential.aaguid)),
        ]
        if let name = credential.authenticatorName { details["authenticator_name"] = .string(name) }
        if let name = credential.shownName { details["passkey_name"] = .string(name) }
        await ceremonies.audit.record(
            .registrationSucceeded, application: application.id, actor: .user(request.userID), userID: request.userID,
            credentialID: credential.credentialID, caller: caller, details: details)
        return registered
    }

    private func verifyAndStore(
        _ request: RegistrationVerifyRequest, application: ApplicationRecord, ceremony: CeremonyKind,
        account: NewAccount?
    )
        async throws -> Registered
    {
        let engine = CeremonyEngine(application: application, ceremonies: ceremonies)
        let consumed = try await engine.consumeChallenge(request.credential.response.clientDataJSON, ceremony: ceremony)
        let challenge = consumed.record
        // Byte for byte: a Unicode-equal spelling of the user id is another user (docs/contract.md §4).
        guard challenge.userID.isSameBytes(as: request.userID) else {
            throw ServiceError.unauthenticated("The challenge was issued for another user")
        }
        let userHandle: [UInt8]
        if let account {
            // A new account's user is stored only with this passkey (EnrollmentGrant.complete).
            guard challenge.grant == .signUp, account.user.userID.isSameBytes(as: request.userID) else {
                throw ServiceError.unauthenticated("The challenge was not issued for this new account")
            }
            userHandle = account.user.userHandle
        } else {
            guard let user = try await store.user(applicationID: application.id, userID: request.userID)
            else { throw ServiceError.unauthenticated("The challenge was issued for another user") }
            userHandle = user.userHandle
        }
        let verified: VerifiedRegistration
        do {
            verified = try await engine.verifyRegistration(
                request.credential, challenge: consumed, userHandle: userHandle)
        } catch let error as WebAuthnError where error.code == .credentialAlreadyRegistered {
            throw ServiceError.conflict("This credential is already registered")
        } catch let error as WebAuthnError
            where error.code == .untrustedAttestation || error.code == .authenticatorRevoked
        {
            throw ServiceError.forbidden("Registration refused by the attestation policy: \(error)")
        } catch let error as WebAuthnError {
            throw ServiceError.unauthenticated("Registration failed: \(error)")
        }
        let record = verified.record
        var credential = StoredCredential(
            applicationID: application.id, userID: request.userID, credentialID: record.id,
            publicKey: record.publicKey.encoded, signCount: record.signCount, aaguid: record.aaguid,
            transports: record.transports.map(\.rawValue), backupEligible: record.backupEligible,
            backupState: record.backupState, uvInitialized: record.uvInitialized, attestationFormat: verified.format,
            deviceName: request.deviceName, createdAt: ceremonies.now(), lastUsedAt: nil,
            authenticatorName: verified.attestation.authenticatorName)
        // §10.1.3 and §10.1.4: what the client said of the credential (never `prf.results`).
        (credential.discoverable, credential.prfEnabled) = CeremonyExtensions.registrationOutputs(
            verified.clientExtensionResults)
        // What `urn:umfa:acr:attested` rests on: a chain to an anchor. SafetyNet vouches for the
        // device, not for where the key lives, so it never counts.
        if case .trusted = verified.attestation.trust, verified.format != "android-safetynet" {
            credential.attestationTrusted = true
        }
        do {
            // The grant is checked again and spent with the store write (docs/contract.md §2, §4).
            try await EnrollmentGrant(
                store: store, loginTokens: loginTokens, now: ceremonies.now, application: application
            )
            .complete(challenge, storing: credential, creating: account)
        } catch let error as StoreError where error.code == .conflict {
            throw ServiceError.conflict("This credential is already registered")
        }
        return Registered(
            credential: credential, authenticatorData: verified.authenticatorData, userpwTime: challenge.userpwTime)
    }
}
