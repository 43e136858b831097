import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATokens
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
    /// With a request, the key pair it names in a PKCS #11 token becomes the signing key of its
    /// algorithm (docs/operators/hsm.md).
    func rotateSigningKey(_ request: SigningKeyRotationRequest?, caller: Caller) async throws
        -> SigningKeyRotatedResponse
    {
        let kids: [TokenSigningAlgorithm: String]
        if request?.pkcs11URI != nil || request?.alg != nil {
            guard let text = request?.pkcs11URI else {
                throw ServiceError.invalid("alg goes with pkcs11_uri", field: "pkcs11_uri")
            }
            guard let algorithm = request?.alg.flatMap(TokenSigningAlgorithm.init(rawValue:)), algorithm != .edDSA
            else {
                throw ServiceError.invalid("alg must be ES256 or RS256 for a key in a PKCS #11 token", field: "alg")
            }
            do {
                let uri = try PKCS11URI(text)
                kids = [algorithm: try await tokens.rotate(pkcs11: uri, algorithm: algorithm)]
            } catch let failure as PKCS11URI.Failure {
                throw ServiceError.invalid("pkcs11_uri: \(failure.description)", field: "pkcs11_uri")
            } catch let failure as PKCS11Failure where failure.isRequestProblem {
                throw ServiceError.invalid(
                    "the PKCS #11 key cannot be used: \(failure.description)", field: "pkcs11_uri")
            }
        } else {
            kids = try await tokens.rotate()
        }
        await audit.record(
            .signingKeyRotated, application: nil, actor: .admin, caller: caller,
            details: [
                "kids": .object(Dictionary(uniqueKeysWithValues: kids.map { ($0.key.rawValue, .string($0.value)) }))
            ])
        return SigningKeyRotatedResponse(
            traceID: caller.traceID, kid: kids[.rs256] ?? kids.values.first ?? "",
            kids: Dictionary(uniqueKeysWithValues: kids.map { ($0.key.rawValue, $0.value) }))
    }
}
