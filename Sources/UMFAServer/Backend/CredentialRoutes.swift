import Foundation
import Hummingbird
import UMFAStorage
import UMFAWebAuthn

/// `GET /api/umfa/users/{user_id}/credentials` and
/// `DELETE /api/umfa/users/{user_id}/credentials/{credential_id}`, for the application's backend.
struct CredentialRoutes {
    let services: ServerServices

    struct CredentialView: Encodable {
        let credentialID: String
        let deviceName: String?
        let createdAt: String
        let lastUsedAt: String?
        let aaguid: String
        let transports: [String]
        let backupEligible: Bool
        let backupState: Bool
        let signCount: UInt32
        let attestationFormat: String
        /// The model's name from FIDO metadata; left out when no metadata named it.
        let authenticatorName: String?

        enum CodingKeys: String, CodingKey {
            case credentialID = "credential_id"
            case deviceName = "device_name"
            case createdAt = "created_at"
            case lastUsedAt = "last_used_at"
            case aaguid, transports
            case backupEligible = "backup_eligible"
            case backupState = "backup_state"
            case signCount = "sign_count"
            case attestationFormat = "attestation_format"
            case authenticatorName = "authenticator_name"
        }

        init(_ credential: StoredCredential) {
            credentialID = Base64URL.encode(credential.credentialID)
            deviceName = credential.deviceName
            createdAt = Timestamps.rfc3339(credential.createdAt)
            lastUsedAt = credential.lastUsedAt.map(Timestamps.rfc3339)
            aaguid = AAGUID.string(credential.aaguid)
            transports = credential.transports
            backupEligible = credential.backupEligible
            backupState = credential.backupState
            signCount = credential.signCount
            attestationFormat = credential.attestationFormat
            authenticatorName = credential.authenticatorName
        }
    }

    struct ListAnswer: Encodable {
        let traceID: String
        let credentials: [CredentialView]

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case credentials
        }
    }

    struct RemovedAnswer: Encodable {
        let traceID: String
        let removed: Bool

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case removed
        }
    }

    func list(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        let (application, userID) = try await authorize(request, context: context, traceID: traceID)
        guard try await services.store.user(applicationID: application.id, userID: userID) != nil else {
            throw APIError.notFound("Unknown user", traceID: traceID)
        }
        return try await Self.listAnswer(services.store, application: application.id, userID: userID, traceID: traceID)
    }

    func delete(_ request: Request, context: some RequestContext) async throws -> Response {
        let traceID = TraceID.from(request)
        let (application, userID) = try await authorize(request, context: context, traceID: traceID)
        return try await Self.deleteAnswer(
            services.store, application: application.id, userID: userID, context: context, traceID: traceID)
    }

    /// The credential list of a user whose right to see it the caller has checked.
    static func listAnswer(_ store: any UMFAStore, application: UUID, userID: String, traceID: String)
        async throws -> Response
    {
        let credentials = try await store.credentials(applicationID: application, userID: userID)
        return try JSONExchange.response(
            ListAnswer(traceID: traceID, credentials: credentials.map(CredentialView.init)))
    }

    /// Deletes the route's `credential_id` of a user whose right to do so the caller has checked;
    /// another user's credential id is simply unknown.
    static func deleteAnswer(
        _ store: any UMFAStore, application: UUID, userID: String, context: some RequestContext, traceID: String
    ) async throws -> Response {
        guard let text = context.parameters.get("credential_id")?.removingPercentEncoding,
            let credentialID = Base64URL.decode(text)
        else {
            throw APIError.badRequest("credential_id must be base64url", traceID: traceID)
        }
        guard try await store.deleteCredential(applicationID: application, userID: userID, credentialID: credentialID)
        else {
            throw APIError.notFound("Unknown credential", traceID: traceID)
        }
        return try JSONExchange.response(RemovedAnswer(traceID: traceID, removed: true))
    }

    private func authorize(_ request: Request, context: some RequestContext, traceID: String) async throws
        -> (ApplicationRecord, String)
    {
        let application = try await APIKeyAuthentication(services: services)
            .application(
                for: request, applicationID: request.uri.queryParameters.get("application_id"), traceID: traceID)
        // Path parameters arrive percent-encoded (`alice%40example.com`); user ids are compared decoded.
        guard let userID = context.parameters.get("user_id")?.removingPercentEncoding else {
            throw APIError.badRequest("user_id must be percent-encoded UTF-8", traceID: traceID)
        }
        try services.checkUserID(userID, traceID: traceID)
        return (application, userID)
    }
}
