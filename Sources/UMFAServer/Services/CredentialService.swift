import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// A user's credentials for the application's backend (API key), and for the demo page's
/// signed-in user: list and delete; the backend deletes whole accounts here too.
struct CredentialService: Sendable {
    let apiKeys: APIKeyAuthentication
    let store: any CredentialStore
    let audit: AuditLog
    let signIns: SignInCredentials
    /// Deletes users' whole accounts.
    let accounts: AccountDeletion

    /// Path values as the route read them: `nil` when one was not valid percent-encoded UTF-8.
    struct Target: Sendable {
        /// `application_id` from the query.
        var applicationID: String?
        /// The decoded `{user_id}`.
        var userID: String?
        /// The decoded `{credential_id}`, base64url.
        var credentialID: String?
    }

    /// `GET /api/umfa/users/{user_id}/credentials`.
    func list(_ target: Target, caller: Caller) async throws -> CredentialListResponse {
        let (application, userID) = try await authorize(target, caller: caller)
        guard try await store.user(applicationID: application.id, userID: userID) != nil else {
            throw ServiceError.notFound("Unknown user")
        }
        return try await Self.list(store, application: application.id, userID: userID, caller: caller)
    }

    /// `DELETE /api/umfa/users/{user_id}/credentials/{credential_id}`.
    func delete(_ target: Target, caller: Caller) async throws -> RemovedResponse {
        let (application, userID) = try await authorize(target, caller: caller)
        let (answer, details) = try await Self.delete(
            store, application: application.id, userID: userID, credentialID: target.credentialID,
            caller: caller, via: "api_key")
        let credentialID = target.credentialID.flatMap(Base64URL.decode)
        await audit.record(
            .credentialDeleted, application: application.id, actor: AuditLog.apiKeyActor(caller), userID: userID,
            credentialID: credentialID, caller: caller, details: details)
        if let credentialID {
            await signIns.revoke(
                in: application.id, userID: userID, credentialID: credentialID, actor: AuditLog.apiKeyActor(caller),
                caller: caller,
                via: "api_key")
        }
        return answer
    }

    /// `DELETE /api/umfa/users/{user_id}`: the user's whole account, in the API key's own
    /// application (a user of another application is simply unknown, 404).
    func deleteUser(_ target: Target, caller: Caller) async throws {
        let (application, userID) = try await authorize(target, caller: caller)
        guard
            try await accounts.delete(
                application, userID: userID, actor: AuditLog.apiKeyActor(caller), caller: caller, via: "api_key")
        else { throw ServiceError.notFound("Unknown user") }
    }

    /// The credential list of a user whose right to see it the caller has checked.
    static func list(_ store: any CredentialStore, application: UUID, userID: String, caller: Caller) async throws
        -> CredentialListResponse
    {
        let credentials = try await store.credentials(applicationID: application, userID: userID)
        return CredentialListResponse(traceID: caller.traceID, credentials: credentials.map(summary))
    }

    /// Deletes a credential of a user whose right to do so the caller has checked; another
    /// user's credential id is simply unknown. The answer, and the details of its audit event
    /// (`via` and the passkey's name, read before it went, for the security notice).
    static func delete(
        _ store: any CredentialStore, application: UUID, userID: String, credentialID text: String?, caller: Caller,
        via: String
    ) async throws -> (RemovedResponse, details: [String: JSONValue]) {
        guard let text, let credentialID = Base64URL.decode(text) else {
            throw ServiceError.invalid("credential_id must be base64url")
        }
        let name = try await store.credential(applicationID: application, credentialID: credentialID)
            .flatMap { $0.userID.isSameBytes(as: userID) ? $0.shownName : nil }
        guard try await store.deleteCredential(applicationID: application, userID: userID, credentialID: credentialID)
        else {
            throw ServiceError.notFound("Unknown credential")
        }
        return (
            RemovedResponse(traceID: caller.traceID),
            ["via": .string(via), "passkey_name": name.map(JSONValue.string) ?? .null]
        )
    }

    /// A stored credential as the API shows it (never its public key).
    static func summary(_ credential: StoredCredential) -> CredentialSummary {
        CredentialSummary(
            credentialID: Base64URL.encode(credential.credentialID), deviceName: credential.deviceName,
            createdAt: Timestamps.rfc3339(credential.createdAt),
            lastUsedAt: credential.lastUsedAt.map(Timestamps.rfc3339),
            aaguid: AAGUID.string(credential.aaguid), transports: credential.transports,
            backupEligible: credential.backupEligible, backupState: credential.backupState,
            signCount: credential.signCount, attestationFormat: credential.attestationFormat,
            authenticatorName: credential.authenticatorName, discoverable: credential.discoverable,
            prfEnabled: credential.prfEnabled)
    }

    private func authorize(_ target: Target, caller: Caller) async throws -> (ApplicationRecord, String) {
        let application =
            try await apiKeys
            .application(for: caller, applicationID: target.applicationID)
        guard let userID = target.userID else { throw ServiceError.invalid("user_id must be percent-encoded UTF-8") }
        try FieldRules.checkUserID(userID)
        return (application, userID)
    }
}
