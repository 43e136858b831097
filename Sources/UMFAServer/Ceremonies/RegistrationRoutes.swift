import Foundation
import Hummingbird
import UMFAStorage
import UMFAWebAuthn

/// `POST /api/umfa/registration/options` and `/verify`.
struct RegistrationRoutes {
    let services: ServerServices

    struct OptionsRequest: Decodable {
        let applicationID: String
        let userID: String
        let displayName: String?
        let enrollmentToken: String?
        let token: String?

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
            case displayName = "display_name"
            case enrollmentToken = "enrollment_token"
            case token
        }
    }

    struct VerifyRequest: Decodable {
        let applicationID: String
        let userID: String
        let credential: RegistrationResponseJSON
        let deviceName: String?

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
            case credential
            case deviceName = "device_name"
        }
    }

    static let offeredAlgorithms: [COSEAlgorithm] = [.es256, .edDSA, .es384, .ps256, .rs256]

    func options(_ request: Request, context: some RequestContext) async throws -> Response {
        let (body, traceID) = try await JSONExchange.decode(OptionsRequest.self, from: request, context: context)
        let application = try await services.application(body.applicationID, traceID: traceID)
        try services.checkUserID(body.userID, traceID: traceID)
        let existing = try await services.store.credentials(applicationID: application.id, userID: body.userID)
        let userpwTime = try await EnrollmentGrant(services: services, application: application, traceID: traceID)
            .authorize(
                userID: body.userID, hasCredentials: !existing.isEmpty, enrollmentToken: body.enrollmentToken,
                loginToken: body.token)
        let displayName = String((body.displayName ?? body.userID).prefix(256))
        let user = try await services.store.insertUser(
            UserRecord(
                applicationID: application.id, userID: body.userID, userHandle: Secrets.randomBytes(32),
                displayName: displayName, createdAt: services.now()))
        let challenge = Secrets.randomBytes(32)
        try await services.store.insertChallenge(
            ChallengeRecord(
                challenge: challenge, applicationID: application.id, userID: body.userID, ceremony: .registration,
                userVerification: application.userVerification, userpwTime: userpwTime,
                expiresAt: services.now().addingTimeInterval(services.challengeLifetime)))
        let options = CreationOptionsJSON(
            rp: RelyingPartyEntity(id: application.rpID, name: application.rpName),
            user: UserEntity(id: Base64URLBytes(user.userHandle), name: body.userID, displayName: displayName),
            challenge: Base64URLBytes(challenge),
            pubKeyCredParams: Self.offeredAlgorithms.map { CredentialParameters(alg: $0) },
            timeout: UInt32(services.challengeLifetime * 1000),
            excludeCredentials: existing.map {
                CredentialDescriptor(
                    id: Base64URLBytes($0.credentialID),
                    transports: $0.transports.map(AuthenticatorTransport.init(rawValue:)))
            },
            authenticatorSelection: AuthenticatorSelectionCriteria(
                residentKey: .preferred, requireResidentKey: false,
                userVerification: UserVerificationRequirement(rawValue: application.userVerification)),
            attestation: AttestationConveyancePreference(rawValue: application.attestation),
            extensions: LoginTokens.requestedExtensions)
        return try JSONExchange.response(OptionsAnswer(traceID: traceID, publicKey: options))
    }

    func verify(_ request: Request, context: some RequestContext) async throws -> Response {
        let (body, traceID) = try await JSONExchange.decode(VerifyRequest.self, from: request, context: context)
        let application = try await services.application(body.applicationID, traceID: traceID)
        try services.checkUserID(body.userID, traceID: traceID)
        return try await services.abuse.ceremony(application: application.id, userID: body.userID, traceID: traceID) {
            try await register(body, application: application, traceID: traceID)
        }
    }

    /// §7.1 over a decoded request; a 401 counts against the abuse limits.
    private func register(_ body: VerifyRequest, application: ApplicationRecord, traceID: String) async throws
        -> Response
    {
        let clientData: CollectedClientData
        do {
            clientData = try CollectedClientData(bytes: body.credential.response.clientDataJSON.bytes)
        } catch {
            throw APIError.badRequest("credential.response.clientDataJSON is not valid client data", traceID: traceID)
        }
        guard let challengeBytes = Base64URL.decode(clientData.challenge),
            let challenge = try await services.store.consumeChallenge(
                challengeBytes, applicationID: application.id, ceremony: .registration),
            challenge.expiresAt > services.now()
        else {
            throw APIError.unauthorized("The challenge is unknown, expired or already used", traceID: traceID)
        }
        guard challenge.userID == body.userID,
            let user = try await services.store.user(applicationID: application.id, userID: body.userID)
        else {
            throw APIError.unauthorized("The challenge was issued for another user", traceID: traceID)
        }
        let verified: VerifiedRegistration
        do {
            verified = try await RegistrationVerifier(
                policy: application.registrationPolicy(anchors: services.attestationAnchors)
            ).verify(
                body.credential, expectedChallenge: challengeBytes, userHandle: user.userHandle,
                userVerification: UserVerificationRequirement(rawValue: challenge.userVerification), at: services.now(),
                isRegistered: { id in
                    try await services.store.credential(applicationID: application.id, credentialID: id) != nil
                })
        } catch let error as WebAuthnError where error.code == .credentialAlreadyRegistered {
            throw APIError.conflict("This credential is already registered", traceID: traceID)
        } catch let error as WebAuthnError
            where error.code == .untrustedAttestation || error.code == .authenticatorRevoked
        {
            throw APIError.forbidden("Registration refused by the attestation policy: \(error)", traceID: traceID)
        } catch let error as WebAuthnError {
            throw APIError.unauthorized("Registration failed: \(error)", traceID: traceID)
        }
        let record = verified.record
        do {
            try await services.store.insertCredential(
                StoredCredential(
                    applicationID: application.id, userID: body.userID, credentialID: record.id,
                    publicKey: record.publicKey.encoded, signCount: record.signCount, aaguid: record.aaguid,
                    transports: record.transports.map(\.rawValue), backupEligible: record.backupEligible,
                    backupState: record.backupState, uvInitialized: record.uvInitialized,
                    attestationFormat: verified.format, deviceName: body.deviceName.map { String($0.prefix(128)) },
                    createdAt: services.now(), lastUsedAt: nil,
                    authenticatorName: verified.attestation.authenticatorName))
        } catch let error as StoreError where error.code == .conflict {
            throw APIError.conflict("This credential is already registered", traceID: traceID)
        }
        let token = try await LoginTokens.issue(
            services: services, application: application, userID: body.userID, credentialID: record.id,
            authenticatorData: verified.authenticatorData, userpwTime: challenge.userpwTime)
        return try JSONExchange.response(
            CeremonyAnswer(
                traceID: traceID, userID: body.userID, credentialID: Base64URL.encode(record.id), token: token))
    }
}
