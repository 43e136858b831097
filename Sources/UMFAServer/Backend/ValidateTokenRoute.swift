import Foundation
import Hummingbird
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// `POST /api/umfa/validate-token`, exactly as the UMFA documentation describes it.
struct ValidateTokenRoute {
    let services: ServerServices

    struct Body: Decodable {
        let applicationID: String?
        let userID: String?
        let token: JSONValue?
        let tokenType: String?

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
            case token
            case tokenType = "token_type"
            case tokenTypeDashed = "token-type"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            applicationID = try container.decodeIfPresent(String.self, forKey: .applicationID)
            userID = try container.decodeIfPresent(String.self, forKey: .userID)
            token = try container.decodeIfPresent(JSONValue.self, forKey: .token)
            tokenType =
                try container.decodeIfPresent(String.self, forKey: .tokenType)
                ?? container.decodeIfPresent(String.self, forKey: .tokenTypeDashed)
        }
    }

    struct Answer: Encodable {
        let userID: String
        let traceID: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case traceID = "trace_id"
        }
    }

    static let failurePrefix = "Validate token failed with: "

    func handle(_ request: Request, context: some RequestContext) async throws -> Response {
        let input = try await JSONExchange.read(request)
        let traceID = input.traceID
        try APIKeyAuthentication.requireKey(request, traceID: traceID)
        let body = try input.decode(Body.self)
        let application = try await APIKeyAuthentication(services: services)
            .application(for: request, applicationID: body.applicationID, traceID: traceID)
        guard let userID = body.userID, !userID.isEmpty else {
            throw APIError.badRequest("user_id is required", traceID: traceID)
        }
        guard let token = body.token else {
            throw APIError.badRequest("token is required", traceID: traceID)
        }
        switch body.tokenType {
        case nil, "jwt":
            guard case .string(let jwt) = token else {
                throw APIError.badRequest("token must be a string when token_type is jwt", traceID: traceID)
            }
            try await validateJWT(jwt, application: application, userID: userID, traceID: traceID)
        case "credential":
            let assertion = try Self.assertion(from: token, traceID: traceID)
            do {
                _ = try await AssertionCheck(
                    services: services, application: application, traceID: traceID, countsFailures: false
                ).verify(assertion, expectedUserID: userID)
            } catch let error as APIError where error.status == .unauthorized {
                throw APIError.unauthorized(
                    Self.failurePrefix + "MFA credential was invalid: \(error.message)", traceID: traceID)
            }
        default:
            throw APIError.badRequest("token_type must be \"jwt\" or \"credential\"", traceID: traceID)
        }
        return try JSONExchange.response(Answer(userID: userID, traceID: traceID))
    }

    /// Checks a login JWT for `application` and `userID`; a failure is 401 naming the reason in
    /// the documented style. The demo page's validate route uses it too.
    func validateJWT(_ jwt: String, application: ApplicationRecord, userID: String, traceID: String) async throws {
        do {
            _ = try await services.tokens.validate(
                jwt, applicationID: application.id, userID: userID, now: services.now())
        } catch {
            throw APIError.unauthorized(
                Self.failurePrefix + "MFA login JWT was invalid: \(error.message)", traceID: traceID)
        }
    }

    /// The `AuthenticationResponseJSON` given as an object or as a JSON string.
    static func assertion(from token: JSONValue, traceID: String) throws -> AuthenticationResponseJSON {
        let data: Data
        switch token {
        case .string(let text): data = Data(text.utf8)
        case .object: data = try JSONEncoder().encode(token)
        default: throw APIError.badRequest("token must be an AuthenticationResponseJSON", traceID: traceID)
        }
        do {
            return try JSONDecoder().decode(AuthenticationResponseJSON.self, from: data)
        } catch {
            throw APIError.badRequest(
                "token is not an AuthenticationResponseJSON: \(JSONExchange.describe(error))", traceID: traceID)
        }
    }
}
