import Foundation
import Hummingbird
import UMFAStorage

/// `POST /api/umfa/enrollment-tokens`: the application's backend grants one registration.
struct EnrollmentTokenRoute {
    let services: ServerServices

    static let defaultLifetime = 600
    static let maximumLifetime = 86_400

    struct Body: Decodable {
        let applicationID: String?
        let userID: String?
        let ttlSeconds: Int?
        let userpwTime: String?

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
            case ttlSeconds = "ttl_seconds"
            case userpwTime = "userpw_time"
        }
    }

    struct Answer: Encodable {
        let traceID: String
        let enrollmentToken: String
        let expiresAt: String

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case enrollmentToken = "enrollment_token"
            case expiresAt = "expires_at"
        }
    }

    func handle(_ request: Request, context: some RequestContext) async throws -> Response {
        let input = try await JSONExchange.read(request)
        let traceID = input.traceID
        try APIKeyAuthentication.requireKey(request, traceID: traceID)
        let body = try input.decode(Body.self)
        let application = try await APIKeyAuthentication(services: services)
            .application(for: request, applicationID: body.applicationID, traceID: traceID)
        guard let userID = body.userID else { throw APIError.badRequest("user_id is required", traceID: traceID) }
        try services.checkUserID(userID, traceID: traceID)
        let lifetime = body.ttlSeconds ?? Self.defaultLifetime
        guard (1...Self.maximumLifetime).contains(lifetime) else {
            throw APIError.badRequest("ttl_seconds must be 1 to \(Self.maximumLifetime)", traceID: traceID)
        }
        var userpwTime: Date?
        if let text = body.userpwTime {
            guard let parsed = Timestamps.parse(text) else {
                throw APIError.badRequest("userpw_time must be an RFC 3339 time", traceID: traceID)
            }
            userpwTime = parsed
        }
        let token = Secrets.make(prefix: "umfa_et_")
        let expiresAt = services.now().addingTimeInterval(TimeInterval(lifetime))
        try await services.store.insertEnrollmentToken(
            EnrollmentTokenRecord(
                tokenHash: Secrets.hash(token), applicationID: application.id, userID: userID, userpwTime: userpwTime,
                expiresAt: expiresAt))
        return try JSONExchange.response(
            Answer(traceID: traceID, enrollmentToken: token, expiresAt: Timestamps.rfc3339(expiresAt)), status: .created
        )
    }
}
