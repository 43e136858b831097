import Foundation
import Hummingbird
import UMFAStorage
import UMFAWebAuthn

/// `POST /api/umfa/authentication/options`, `/authentication/verify` and `/unenroll`.
struct AuthenticationRoutes {
    let services: ServerServices

    struct OptionsRequest: Decodable {
        let applicationID: String
        let userID: String?

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
        }
    }

    struct VerifyRequest: Decodable {
        let applicationID: String
        let userID: String?
        let credential: AuthenticationResponseJSON

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
            case credential
        }
    }

    struct UnenrollResponse: Encodable {
        let traceID: String
        let userID: String
        let credentialID: String
        let removed: Bool

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case userID = "user_id"
            case credentialID = "credential_id"
            case removed
        }
    }

    /// Options for a named user list their credentials; for an unknown user (or one without
    /// credentials) they list a stable pseudo-random id derived with the server secret, so the
    /// answer never tells whether the user exists.
    func options(_ request: Request, context: some RequestContext) async throws -> Response {
        let (body, traceID) = try await JSONExchange.decode(OptionsRequest.self, from: request, context: context)
        let application = try await services.application(body.applicationID, traceID: traceID)
        var allow: [CredentialDescriptor]?
        if let userID = body.userID {
            try services.checkUserID(userID, traceID: traceID)
            let credentials = try await services.store.credentials(applicationID: application.id, userID: userID)
            allow = credentials.map {
                CredentialDescriptor(
                    id: Base64URLBytes($0.credentialID),
                    transports: $0.transports.map(AuthenticatorTransport.init(rawValue:)))
            }
            if credentials.isEmpty {
                let pseudo = Secrets.derive(
                    "pseudo-credential:\(application.id.uuidString.lowercased()):\(userID)", key: services.serverSecret)
                allow = [CredentialDescriptor(id: Base64URLBytes(pseudo), transports: [.internal])]
            }
        }
        let challenge = Secrets.randomBytes(32)
        try await services.store.insertChallenge(
            ChallengeRecord(
                challenge: challenge, applicationID: application.id, userID: body.userID, ceremony: .authentication,
                userVerification: application.userVerification,
                expiresAt: services.now().addingTimeInterval(services.challengeLifetime)))
        let options = RequestOptionsJSON(
            challenge: Base64URLBytes(challenge), timeout: UInt32(services.challengeLifetime * 1000),
            rpId: application.rpID, allowCredentials: allow ?? [],
            userVerification: UserVerificationRequirement(rawValue: application.userVerification),
            extensions: LoginTokens.requestedExtensions)
        return try JSONExchange.response(OptionsAnswer(traceID: traceID, publicKey: options))
    }

    func verify(_ request: Request, context: some RequestContext) async throws -> Response {
        let (body, traceID) = try await JSONExchange.decode(VerifyRequest.self, from: request, context: context)
        let application = try await services.application(body.applicationID, traceID: traceID)
        if let userID = body.userID { try services.checkUserID(userID, traceID: traceID) }
        let outcome = try await AssertionCheck(services: services, application: application, traceID: traceID)
            .verify(body.credential, expectedUserID: body.userID)
        let token = try await LoginTokens.issue(
            services: services, application: application, userID: outcome.credential.userID,
            credentialID: outcome.credential.credentialID, authenticatorData: outcome.verified.authenticatorData,
            userpwTime: nil)
        return try JSONExchange.response(
            CeremonyAnswer(
                traceID: traceID, userID: outcome.credential.userID,
                credentialID: Base64URL.encode(outcome.credential.credentialID), token: token))
    }

    struct UnenrollRequest: Decodable {
        let applicationID: String
        let userID: String
        let credential: AuthenticationResponseJSON

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
            case credential
        }
    }

    /// Removes the credential that signed a fresh challenge: only its holder can unenroll it.
    func unenroll(_ request: Request, context: some RequestContext) async throws -> Response {
        let (body, traceID) = try await JSONExchange.decode(UnenrollRequest.self, from: request, context: context)
        let application = try await services.application(body.applicationID, traceID: traceID)
        try services.checkUserID(body.userID, traceID: traceID)
        let outcome = try await AssertionCheck(services: services, application: application, traceID: traceID)
            .verify(body.credential, expectedUserID: body.userID)
        _ = try await services.store.deleteCredential(
            applicationID: application.id, userID: body.userID, credentialID: outcome.credential.credentialID)
        return try JSONExchange.response(
            UnenrollResponse(
                traceID: traceID, userID: body.userID,
                credentialID: Base64URL.encode(outcome.credential.credentialID), removed: true))
    }
}
