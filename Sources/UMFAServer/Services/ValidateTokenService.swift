import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// `validate-token`, exactly as the UMFA documentation describes it: a login JWT, or an
/// assertion (`token_type` `credential`) checked by §7.2 against a challenge of this server.
struct ValidateTokenService: Sendable {
    let apiKeys: APIKeyAuthentication
    let ceremonies: Ceremonies
    let loginTokens: LoginTokens
    let refusals: RefusalTrail

    static let failurePrefix = "Validate token failed with: "

    /// Checks the token for the application of the caller's API key.
    func validate(_ request: ValidateTokenRequest, caller: Caller) async throws -> ValidateTokenResponse {
        let application =
            try await apiKeys
            .application(for: caller, applicationID: request.applicationID)
        guard !request.userID.isEmpty else { throw ServiceError.invalid("user_id is required") }
        try FieldRules.checkUserID(request.userID)
        switch request.tokenType {
        case nil, "jwt":
            guard case .string(let jwt) = request.token else {
                throw ServiceError.invalid("token must be a string when token_type is jwt")
            }
            do {
                try await validateJWT(jwt, application: application, userID: request.userID)
            } catch let error as ServiceError where error.code == .unauthenticated {
                trace(.invalid, application: application, caller: caller)
                throw error
            }
        case "credential":
            let assertion = try Self.assertion(from: request.token)
            do {
                _ = try await AssertionCheck(
                    ceremonies: ceremonies, application: application, caller: caller, countsFailures: false,
                    purpose: "validate_token"
                ).verify(assertion, expectedUserID: request.userID)
            } catch let error as ServiceError where error.code == .unauthenticated {
                trace(.badCredential, application: application, caller: caller)
                throw ServiceError.unauthenticated(Self.failurePrefix + "MFA credential was invalid: \(error.message)")
            }
        default:
            throw ServiceError.invalid("token_type must be \"jwt\" or \"credential\"")
        }
        return ValidateTokenResponse(userID: request.userID, traceID: caller.traceID)
    }

    /// The operator's trace of a refused token (``RefusalTrail``), by the application of the API key.
    private func trace(_ reason: TokenRefusal, application: ApplicationRecord, caller: Caller) {
        refusals.token(
            reason, at: .validateToken, clientID: nil, applicationID: application.id, address: caller.clientAddress,
            traceID: caller.traceID)
    }

    /// Checks a login JWT for `application` and `userID`; a failure is 401 naming the reason in
    /// the documented style. The demo page's validate route uses it too.
    func validateJWT(_ jwt: String, application: ApplicationRecord, userID: String) async throws {
        do {
            _ = try await loginTokens.validate(
                jwt, application: application, userID: userID, lookup: .cached)
        } catch let failure as TokenValidationFailure {
            throw ServiceError.unauthenticated(Self.failurePrefix + "MFA login JWT was invalid: \(failure.message)")
        }
    }

    /// The `AuthenticationResponseJSON` given as an object or as a JSON string.
    static func assertion(from token: JSONValue) throws -> AuthenticationResponseJSON {
        let data: Data
        switch token {
        case .string(let text): data = Data(text.utf8)
        case .object: data = try JSONEncoder().encode(token)
        default: throw ServiceError.invalid("token must be an AuthenticationResponseJSON")
        }
        do {
            return try JSONDecoder().decode(AuthenticationResponseJSON.self, from: data)
        } catch {
            throw ServiceError.invalid("token is not an AuthenticationResponseJSON: \(JSONExchange.describe(error))")
        }
    }
}
