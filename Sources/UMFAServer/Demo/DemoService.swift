import Foundation
import UMFAContract
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// Development-only operations for the demo page, served only for the development application
/// `umfa serve` created (``DevelopmentApplication``) and absent with `--no-default-app`:
///
/// - `POST /api/demo/validate-token`: the page's "validate" button. The browser never holds an
///   API key, so the server checks the login token exactly as `validate-token` does, for the
///   development application only.
/// - `GET /api/demo/users/{user_id}/credentials` and
///   `DELETE /api/demo/users/{user_id}/credentials/{credential_id}`: the signed-in user's
///   passkeys, authorised by that user's login token (`Authorization: Bearer <login token>`).
struct DemoService: Sendable {
    let services: ServerServices

    /// Checks a login token of the development application.
    func validate(_ request: DemoValidateRequest, caller: Caller) async throws -> ValidateTokenResponse {
        guard !request.userID.isEmpty else { throw ServiceError.invalid("user_id is required") }
        guard !request.token.isEmpty else { throw ServiceError.invalid("token is required") }
        let application = try await developmentApplication(named: request.applicationID)
        try await ValidateTokenService(services: services)
            .validateJWT(request.token, application: application, userID: request.userID)
        return ValidateTokenResponse(userID: request.userID, traceID: caller.traceID)
    }

    /// The signed-in user's credentials.
    func listCredentials(_ target: CredentialService.Target, caller: Caller) async throws -> CredentialListResponse {
        let (application, userID) = try await signedInUser(target, caller: caller)
        return try await CredentialService.list(
            services.store, application: application.id, userID: userID, caller: caller)
    }

    /// Deletes one of the signed-in user's credentials.
    func deleteCredential(_ target: CredentialService.Target, caller: Caller) async throws -> RemovedResponse {
        let (application, userID) = try await signedInUser(target, caller: caller)
        return try await CredentialService.delete(
            services.store, application: application.id, userID: userID, credentialID: target.credentialID,
            caller: caller)
    }

    /// The user of the path, proven by a valid login token for that user of the development
    /// application: 401 without one, 403 when there is no development application.
    private func signedInUser(_ target: CredentialService.Target, caller: Caller) async throws
        -> (ApplicationRecord, String)
    {
        guard let token = caller.bearer else {
            throw ServiceError.unauthenticated("Sign in first: send Authorization: Bearer <login token>")
        }
        guard let userID = target.userID else { throw ServiceError.invalid("user_id must be percent-encoded UTF-8") }
        try services.checkUserID(userID)
        let application = try await developmentApplication(named: nil)
        do {
            _ = try await LoginTokens.validate(token, services: services, application: application, userID: userID)
        } catch let failure as TokenValidationFailure {
            throw ServiceError.unauthenticated("The login token was refused (\(failure.message)); sign in again")
        }
        return (application, userID)
    }

    /// The development application; 403 when the request names another one or there is none.
    private func developmentApplication(named text: String?) async throws -> ApplicationRecord {
        guard let id = try await DevelopmentApplication.id(in: services.store),
            let application = try await services.store.application(id: id)
        else {
            throw ServiceError.forbidden(
                "The demo routes serve only the development application, and this server has none")
        }
        if let text {
            guard let named = UUID(uuidString: text) else {
                throw ServiceError.invalid("application_id must be a UUID")
            }
            guard named == id else {
                throw ServiceError.forbidden("The demo routes serve only the development application")
            }
        }
        return application
    }
}
