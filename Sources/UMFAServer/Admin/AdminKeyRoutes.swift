import Foundation
import Hummingbird
import UMFAStorage

/// API keys and token signing keys, behind the admin token.
extension AdminRoutes {
    struct KeyAnswer: Encodable {
        let traceID: String
        let apiKey: String
        let keyID: String

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case apiKey = "api_key"
            case keyID = "key_id"
        }
    }

    struct KeyList: Encodable {
        struct Key: Encodable {
            let keyID: String
            let createdAt: String

            enum CodingKeys: String, CodingKey {
                case keyID = "key_id"
                case createdAt = "created_at"
            }
        }

        let traceID: String
        let apiKeys: [Key]

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case apiKeys = "api_keys"
        }
    }

    struct Removed: Encodable {
        let traceID: String
        let removed: Bool

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case removed
        }
    }

    struct Rotated: Encodable {
        let traceID: String
        let kid: String

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case kid
        }
    }

    /// `POST /api/admin/applications/{id}/api-keys`: a new key; older keys keep working until deleted.
    func addAPIKey(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        try authorize(request, traceID: traceID)
        let application = try await lookup(context, traceID: traceID)
        let apiKey = Secrets.make(prefix: "umfa_ak_")
        let hash = Secrets.hash(apiKey)
        try await services.store.insertAPIKey(hash: hash, applicationID: application.id, createdAt: services.now())
        return try JSONExchange.response(
            KeyAnswer(traceID: traceID, apiKey: apiKey, keyID: APIKeyRecord.keyID(forHash: hash)), status: .created)
    }

    /// `GET /api/admin/applications/{id}/api-keys`: key ids and creation times, never keys.
    func listAPIKeys(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        try authorize(request, traceID: traceID)
        let application = try await lookup(context, traceID: traceID)
        let keys = try await services.store.apiKeys(applicationID: application.id)
        return try JSONExchange.response(
            KeyList(
                traceID: traceID,
                apiKeys: keys.map { KeyList.Key(keyID: $0.keyID, createdAt: Timestamps.rfc3339($0.createdAt)) }))
    }

    /// `DELETE /api/admin/applications/{id}/api-keys/{key_id}`: revokes a key at once, on every
    /// instance (keys are looked up in the database on each request; nothing is cached).
    func deleteAPIKey(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        try authorize(request, traceID: traceID)
        let application = try await lookup(context, traceID: traceID)
        guard let keyID = context.parameters.get("key_id")?.removingPercentEncoding, !keyID.isEmpty else {
            throw APIError.badRequest("key_id is required", traceID: traceID)
        }
        guard try await services.store.deleteAPIKey(applicationID: application.id, keyID: keyID) else {
            throw APIError.notFound("Unknown API key", traceID: traceID)
        }
        return try JSONExchange.response(Removed(traceID: traceID, removed: true))
    }

    /// `POST /api/admin/signing-keys`: a new token signing key signs from now on; the old ones
    /// stay in JWKS and validate their tokens until those expire.
    func rotateSigningKey(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        try authorize(request, traceID: traceID)
        let kid = try await services.tokens.rotate()
        return try JSONExchange.response(Rotated(traceID: traceID, kid: kid), status: .created)
    }
}
