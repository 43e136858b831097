import Foundation
import Hummingbird
import UMFAStorage

/// Checks `Authorization: Bearer <API key>` for the application a request names: the key
/// must belong to exactly that application, else 401, so one application's key can never
/// read, validate or change another's data. Wrong keys count against the client address's
/// abuse limit.
struct APIKeyAuthentication {
    let services: ServerServices

    /// Refuses a request without any API key before its body is judged, so a caller without
    /// a key learns nothing about the route.
    static func requireKey(_ request: Request, traceID: String) throws {
        guard BearerToken.from(request) != nil else {
            throw APIError.unauthorized("Missing API key: send Authorization: Bearer <API key>", traceID: traceID)
        }
    }

    func application(for request: Request, applicationID text: String?, traceID: String) async throws
        -> ApplicationRecord
    {
        guard let key = BearerToken.from(request) else {
            throw APIError.unauthorized("Missing API key: send Authorization: Bearer <API key>", traceID: traceID)
        }
        // A caller that keeps sending wrong keys is refused (429) before any lookup.
        try services.abuse.checkCredentialGuessing(traceID: traceID)
        guard let text, !text.isEmpty else {
            throw APIError.badRequest("application_id is required", traceID: traceID)
        }
        guard let applicationID = UUID(uuidString: text) else {
            throw APIError.badRequest("application_id must be a UUID", traceID: traceID)
        }
        let owner = try await services.store.applicationID(forAPIKeyHash: Secrets.hash(key))
        guard let owner, owner == applicationID else {
            // Only a key that exists nowhere is a guess; a real key naming another application is not.
            if owner == nil { services.abuse.recordCredentialFailure() }
            throw APIError.unauthorized("The API key is not valid for this application", traceID: traceID)
        }
        guard let application = try await services.store.application(id: applicationID) else {
            throw APIError.unauthorized("The API key is not valid for this application", traceID: traceID)
        }
        return application
    }
}

/// The bearer token of a request.
enum BearerToken {
    static func from(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
