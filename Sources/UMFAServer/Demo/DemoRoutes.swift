import Foundation
import Hummingbird
import UMFAStorage
import UMFAWebAuthn

/// Development-only routes for the demo page, served only for the development application
/// `umfa serve` created (``DevelopmentApplication``) and absent with `--no-default-app`:
///
/// - `POST /api/demo/validate-token`: the page's "validate" button. The browser never holds an
///   API key, so the server checks the login token exactly as `validate-token` does, for the
///   development application only.
/// - `GET /api/demo/users/{user_id}/credentials` and
///   `DELETE /api/demo/users/{user_id}/credentials/{credential_id}`: the signed-in user's
///   passkeys, authorised by that user's login token (`Authorization: Bearer <login token>`).
struct DemoRoutes {
    let services: ServerServices

    struct ValidateRequest: Decodable {
        let applicationID: String?
        let userID: String?
        let token: String?

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
            case token
        }
    }

    func validate(_ request: Request, context: some RequestContext) async throws -> Response {
        let (body, traceID) = try await JSONExchange.decode(ValidateRequest.self, from: request, context: context)
        guard let userID = body.userID, !userID.isEmpty else {
            throw APIError.badRequest("user_id is required", traceID: traceID)
        }
        guard let token = body.token, !token.isEmpty else {
            throw APIError.badRequest("token is required", traceID: traceID)
        }
        let application = try await developmentApplication(named: body.applicationID, traceID: traceID)
        try await ValidateTokenRoute(services: services)
            .validateJWT(token, application: application, userID: userID, traceID: traceID)
        return try JSONExchange.response(ValidateTokenRoute.Answer(userID: userID, traceID: traceID))
    }

    func listCredentials(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        let (application, userID) = try await signedInUser(request, context: context, traceID: traceID)
        return try await CredentialRoutes.listAnswer(
            services.store, application: application.id, userID: userID, traceID: traceID)
    }

    func deleteCredential(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        let (application, userID) = try await signedInUser(request, context: context, traceID: traceID)
        return try await CredentialRoutes.deleteAnswer(
            services.store, application: application.id, userID: userID, context: context, traceID: traceID)
    }

    /// The user of the path, proven by a valid login token for that user of the development
    /// application: 401 without one, 403 when there is no development application.
    private func signedInUser(_ request: Request, context: some RequestContext, traceID: String) async throws
        -> (ApplicationRecord, String)
    {
        guard let token = BearerToken.from(request) else {
            throw APIError.unauthorized("Sign in first: send Authorization: Bearer <login token>", traceID: traceID)
        }
        guard let userID = context.parameters.get("user_id")?.removingPercentEncoding else {
            throw APIError.badRequest("user_id must be percent-encoded UTF-8", traceID: traceID)
        }
        try services.checkUserID(userID, traceID: traceID)
        let application = try await developmentApplication(named: nil, traceID: traceID)
        do {
            _ = try await services.tokens.validate(
                token, applicationID: application.id, userID: userID, now: services.now())
        } catch {
            throw APIError.unauthorized(
                "The login token was refused (\(error.message)); sign in again", traceID: traceID)
        }
        return (application, userID)
    }

    /// The development application; 403 when the request names another one or there is none.
    private func developmentApplication(named text: String?, traceID: String) async throws -> ApplicationRecord {
        guard let id = try await DevelopmentApplication.id(in: services.store),
            let application = try await services.store.application(id: id)
        else {
            throw APIError.forbidden(
                "The demo routes serve only the development application, and this server has none", traceID: traceID)
        }
        if let text {
            guard let named = UUID(uuidString: text) else {
                throw APIError.badRequest("application_id must be a UUID", traceID: traceID)
            }
            guard named == id else {
                throw APIError.forbidden(
                    "The demo routes serve only the development application", traceID: traceID)
            }
        }
        return application
    }
}
