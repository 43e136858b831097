import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATokens

/// The admin API's OAuth clients of an application (docs/contract.md §5): the secret of a confidential
/// client is shown once, at creation and at rotation, and stored as SHA-256.
struct OAuthClientAdminService: Sendable {
    let store: any ApplicationStore & OAuthClientStore
    /// Seals client secrets.
    let sealed: SealedSecrets
    /// Checks a pairwise client's sector identifier document.
    let sectorDocuments: SectorIdentifierDocuments
    let audit: AuditLog
    let now: @Sendable () -> Date

    func create(_ request: OAuthClientRequest, values: RequestValues, caller: Caller) async throws
        -> OAuthClientResponse
    {
        let application = try await store.administeredApplication(values.path("id"))
        let defaults = OAuthClientSettings.newClient(applicationID: application.id, at: now())
        guard request.clientName != nil else { throw ServiceError.invalid("client_name is required") }
        var client = try OAuthClientSettings.apply(request, to: defaults)
        try await sectorDocuments.check(client, selfRegistered: false)
        var secret: String?
        if client.authenticationMethod.usesSecret { secret = try newSecret(for: &client) }
        try await store.insertOAuthClient(client)
        await record(.oauthClientCreated, client, caller: caller)
        return OAuthClientResponse(traceID: caller.traceID, client: Self.view(client), clientSecret: secret)
    }

    func list(values: RequestValues, caller: Caller) async throws -> OAuthClientListResponse {
        let application = try await store.administeredApplication(values.path("id"))
        let clients = try await store.oauthClients(applicationID: application.id)
        return OAuthClientListResponse(traceID: caller.traceID, clients: clients.map(Self.view))
    }

    func show(values: RequestValues, caller: Caller) async throws -> OAuthClientResponse {
        OAuthClientResponse(traceID: caller.traceID, client: Self.view(try await lookup(values)))
    }

    /// Applies the members present; a change of authentication method makes or drops the secret
    /// (a new secret is shown in the answer).
    func update(_ request: OAuthClientRequest, values: RequestValues, caller: Caller) async throws
        -> OAuthClientResponse
    {
        let stored = try await lookup(values)
        var client = try OAuthClientSettings.apply(request, to: stored)
        try OAuthClientSettings.checkSectorKept(client, stored: stored)
        // A client that registered itself keeps the rules of one: its URIs are anyone's choice.
        try await sectorDocuments.check(client, selfRegistered: client.isSelfRegistered)
        var secret: String?
        let needsSealed = client.authenticationMethod == .clientSecretJWT && client.sealedSecret == nil
        if client.authenticationMethod.usesSecret, client.secretHash == nil || needsSealed {
            secret = try newSecret(for: &client)
        } else if !client.authenticationMethod.usesSecret {
            (client.secretHash, client.sealedSecret) = (nil, nil)
        }
        if client.authenticationMethod != .clientSecretJWT { client.sealedSecret = nil }
        guard try await store.updateOAuthClient(client) else { throw ServiceError.notFound("Unknown client") }
        await record(.oauthClientUpdated, client, caller: caller)
        return OAuthClientResponse(traceID: caller.traceID, client: Self.view(client), clientSecret: secret)
    }

    func delete(values: RequestValues, caller: Caller) async throws -> RemovedResponse {
        let client = try await lookup(values)
        guard try await store.deleteOAuthClient(applicationID: client.applicationID, clientID: client.clientID)
        else { throw ServiceError.notFound("Unknown client") }
        await record(.oauthClientDeleted, client, caller: caller)
        return RemovedResponse(traceID: caller.traceID)
    }

    /// A new secret; the old one stops working at once.
    func rotateSecret(values: RequestValues, caller: Caller) async throws -> OAuthClientResponse {
        var client = try await lookup(values)
        guard client.authenticationMethod.usesSecret else {
            throw ServiceError.invalid(
                "Only client_secret_basic and client_secret_post clients have a secret; \(client.authenticationMethod.rawValue) has none"
            )
        }
        let secret = try newSecret(for: &client)
        guard try await store.updateOAuthClient(client) else { throw ServiceError.notFound("Unknown client") }
        await record(.oauthClientSecretRotated, client, caller: caller)
        return OAuthClientResponse(traceID: caller.traceID, client: Self.view(client), clientSecret: secret)
    }

    private func record(_ action: AuditAction, _ client: OAuthClientRecord, caller: Caller) async {
        await audit.record(
            action, application: client.applicationID, actor: .admin, caller: caller,
            details: ["client_id": .string(client.clientID)])
    }

    private func newSecret(for client: inout OAuthClientRecord) throws -> String {
        try OAuthClientSettings.newSecret(for: &client, sealed: sealed)
    }

    private func lookup(_ values: RequestValues) async throws -> OAuthClientRecord {
        let application = try await store.administeredApplication(values.path("id"))
        guard let clientID = values.path("client_id"),
            let client = try await store.oauthClient(applicationID: application.id, clientID: clientID)
        else { throw ServiceError.notFound("Unknown client") }
        return client
    }

    static func view(_ client: OAuthClientRecord) -> OAuthClientView {
        OAuthClientView(
            clientID: client.clientID, applicationID: client.applicationID.uuidString.lowercased(),
            createdAt: Timestamps.rfc3339(client.createdAt), metadata: client.settings)
    }
}
