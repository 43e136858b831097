import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// `/api/umfa/me/…` (docs/contract.md §8): the signed-in user lists, renames and deletes their own
/// passkeys, with a login token or an access token granted `umfa:passkeys`
/// (``PasskeyManagementAccess``). Another user's or application's credential is simply unknown
/// (404).
struct SelfServiceService: Sendable {
    let access: PasskeyManagementAccess
    let store: any CredentialStore & SelfServiceStore
    let audit: AuditLog
    let signIns: SignInCredentials
    /// Deletes the user's whole account.
    let accounts: AccountDeletion

    /// The longest name, in characters.
    static let nameLength = 64

    func list(values: RequestValues, caller: Caller) async throws -> MyCredentialListResponse {
        let user = try await access.user(caller, values: values)
        let credentials = try await store.credentials(applicationID: user.application.id, userID: user.userID)
        guard let record = try await store.user(applicationID: user.application.id, userID: user.userID) else {
            throw ServiceError.notFound("Unknown user")
        }
        return MyCredentialListResponse(
            traceID: caller.traceID, credentials: credentials.map(Self.view),
            userHandle: Base64URL.encode(record.userHandle))
    }

    func rename(_ request: RenameCredentialRequest, values: RequestValues, caller: Caller) async throws
        -> MyCredentialResponse
    {
        let user = try await access.user(caller, values: values)
        let credentialID = try Self.credentialID(values)
        var name: String?
        if let given = request.name {
            let trimmed = given.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...Self.nameLength).contains(trimmed.count),
                !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw ServiceError.invalid("name must be 1 to \(Self.nameLength) characters without control characters")
            }
            name = trimmed
        }
        guard
            let credential = try await store.renameCredential(
                applicationID: user.application.id, userID: user.userID, credentialID: credentialID, name: name)
        else { throw ServiceError.notFound("Unknown credential") }
        await audit.record(
            .credentialRenamed, application: user.application.id, actor: .user(user.userID), userID: user.userID,
            credentialID: credentialID, caller: caller, details: ["name": name.map(JSONValue.string) ?? .null])
        return MyCredentialResponse(traceID: caller.traceID, credential: Self.view(credential))
    }

    /// Deletes a passkey; the user's last one only with `confirm_last=true` (409 otherwise), so
    /// nobody locks themselves out by accident.
    func delete(values: RequestValues, caller: Caller) async throws -> RemovedResponse {
        let user = try await access.user(caller, values: values)
        let credentialID = try Self.credentialID(values)
        let (applicationID, userID) = (user.application.id, user.userID)
        // Its name, for the security notice (read before it goes).
        let name = try await store.credential(applicationID: applicationID, credentialID: credentialID)
            .flatMap { $0.userID.isSameBytes(as: userID) ? $0.shownName : nil }
        let removed = {
            await audit.record(
                .credentialDeleted, application: applicationID, actor: .user(userID), userID: userID,
                credentialID: credentialID, caller: caller,
                details: ["via": .string("self_service"), "passkey_name": name.map(JSONValue.string) ?? .null])
            await signIns.revoke(
                in: applicationID, userID: userID, credentialID: credentialID, actor: .user(userID), caller: caller,
                via: "self_service")
            return RemovedResponse(traceID: caller.traceID)
        }
        if values.query("confirm_last") == "true" {
            guard
                try await store.deleteCredential(
                    applicationID: applicationID, userID: userID, credentialID: credentialID)
            else { throw ServiceError.notFound("Unknown credential") }
            return await removed()
        }
        if try await store.deleteCredentialKeepingLast(
            applicationID: applicationID, userID: userID, credentialID: credentialID)
        {
            return await removed()
        }
        let owned = try await store.credentials(applicationID: applicationID, userID: userID)
        guard owned.contains(where: { $0.credentialID == credentialID }) else {
            throw ServiceError.notFound("Unknown credential")
        }
        throw ServiceError(
            .conflict, "This is your last passkey: delete it with confirm_last=true, or add another one first")
    }

    /// `DELETE /api/umfa/me`: the signed-in user's whole account, with a login token or an
    /// access token granted ``PasskeyManagementAccess/accountScope``, from a sign-in at most
    /// ``SignedInUser/freshness`` old either way.
    func deleteAccount(values: RequestValues, caller: Caller) async throws {
        let user = try await access.user(caller, values: values, scope: PasskeyManagementAccess.accountScope)
        guard
            try await accounts.delete(
                user.application, userID: user.userID, actor: .user(user.userID), caller: caller, via: "self_service")
        else { throw ServiceError.notFound("Unknown user") }
    }

    static func credentialID(_ values: RequestValues) throws -> [UInt8] {
        guard let text = values.path("credential_id"), let id = Base64URL.decode(text) else {
            throw ServiceError.invalid("credential_id must be base64url")
        }
        return id
    }

    /// A credential as the user sees it. Credentials registered before the provider table
    /// existed have no stored authenticator name, so the table is asked here too.
    static func view(_ credential: StoredCredential) -> MyCredential {
        let authenticatorName = credential.authenticatorName ?? PasskeyProviders.name(for: credential.aaguid)
        return MyCredential(
            credentialID: Base64URL.encode(credential.credentialID), name: credential.shownName,
            aaguid: AAGUID.string(credential.aaguid), authenticatorName: authenticatorName,
            createdAt: Timestamps.rfc3339(credential.createdAt),
            lastUsedAt: credential.lastUsedAt.map(Timestamps.rfc3339), backupEligible: credential.backupEligible,
            backedUp: credential.backupState, transports: credential.transports, discoverable: credential.discoverable,
            prfEnabled: credential.prfEnabled)
    }
}

extension StoredCredential {
    /// The name a person knows the passkey by: the one given at registration, else the
    /// authenticator's (FIDO metadata, else UMFA's table of passkey providers).
    var shownName: String? { deviceName ?? authenticatorName ?? PasskeyProviders.name(for: aaguid) }
}
