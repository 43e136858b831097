import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

extension AdminService {
    /// A new API key for the application (shown once, stored hashed); older keys keep working.
    func addAPIKey(id: String?, caller: Caller) async throws -> APIKeyCreatedResponse {
        let application = try await lookup(id)
        let apiKey = Secrets.make(prefix: "umfa_ak_")
        let hash = Secrets.hash(apiKey)
        try await store.insertAPIKey(hash: hash, applicationID: application.id, createdAt: now())
        let keyID = APIKeyRecord.keyID(forHash: hash)
        await audit.record(
            .apiKeyCreated, application: application.id, actor: .admin, caller: caller,
            details: ["key_id": .string(keyID)])
        return APIKeyCreatedResponse(traceID: caller.traceID, apiKey: apiKey, keyID: APIKeyRecord.keyID(forHash: hash))
    }

    /// The application's API keys, by key id (never the keys).
    func listAPIKeys(id: String?, caller: Caller) async throws -> APIKeyListResponse {
        let application = try await lookup(id)
        let keys = try await store.apiKeys(applicationID: application.id)
        return APIKeyListResponse(
            traceID: caller.traceID,
            apiKeys: keys.map { APIKeySummary(keyID: $0.keyID, createdAt: Timestamps.rfc3339($0.createdAt)) })
    }

    /// Deletes one API key.
    func deleteAPIKey(id: String?, keyID: String?, caller: Caller) async throws -> RemovedResponse {
        let application = try await lookup(id)
        guard let keyID, !keyID.isEmpty else { throw ServiceError.invalid("key_id is required") }
        guard try await store.deleteAPIKey(applicationID: application.id, keyID: keyID) else {
            throw ServiceError.notFound("Unknown API key")
        }
        await audit.record(
            .apiKeyRevoked, application: application.id, actor: .admin, caller: caller,
            details: ["key_id": .string(keyID)])
        return RemovedResponse(traceID: caller.traceID)
    }

    /// A new signing key of each algorithm; the previous ones are retired and still validate.
    func rotateSigningKey(caller: Caller) async throws -> SigningKeyRotatedResponse {
        let kids = try await tokens.rotate()
        await audit.record(
            .signingKeyRotated, application: nil, actor: .admin, caller: caller,
            details: [
                "kids": .object(Dictionary(uniqueKeysWithValues: kids.map { ($0.key.rawValue, .string($0.value)) }))
            ])
        return SigningKeyRotatedResponse(
            traceID: caller.traceID, kid: kids[.rs256] ?? "",
            kids: Dictionary(uniqueKeysWithValues: kids.map { ($0.key.rawValue, $0.value) }))
    }
}
