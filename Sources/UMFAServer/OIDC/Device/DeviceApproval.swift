import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// The person's side of the device grant (RFC 8628 §3.3), for the hosted device page: what the
/// device with a typed user code asks for, and the signed-in person's decision, which spends the
/// user code and waits, stored, for the device's next poll (``DeviceCodeGrant``). Every lookup
/// that finds no device counts against the caller's address (``AbuseGuard/userCodeGuess(_:_:)``).
struct DeviceApproval: Sendable {
    let grants: OAuthGrants
    let store: any OAuthClientStore
    let abuse: AbuseGuard
    let audit: AuditLog
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer

    static let unknownCode =
        "No device waits for this code. Check the code your device shows; a code lasts ten minutes."

    /// `POST <issuer>/device/code`: the client and scopes of the device waiting with this code.
    func lookup(_ request: DeviceCodeRequest, caller: Caller) async throws -> DeviceCodeResponse {
        let waiting = try await waiting(request.userCode, caller: caller, spend: false)
        let client = try await client(of: waiting.pending)
        return DeviceCodeResponse(
            traceID: caller.traceID, clientName: client.name, selfRegistered: client.isSelfRegistered,
            scopes: waiting.pending.scopes, userCode: UserCode.display(UserCode.normalize(request.userCode) ?? ""))
    }

    /// `POST <issuer>/device/decision`: the decision of `user`, signed in to this application by a
    /// fresh login token; the user code is spent, the decision kept for the device's poll.
    func decide(_ request: DeviceDecisionRequest, user: SignedInUser, caller: Caller) async throws
        -> DeviceDecisionResponse
    {
        // The edge checked the application (``OperationRoute/signedInJSON(loginTokens:applications:_:)``);
        // checked again here, where the decision is made.
        guard user.application.id == issuer.application.id, let token = user.loginToken else {
            throw ServiceError.unauthenticated("Sign in to \(issuer.application.name) with a passkey first")
        }
        let waiting = try await waiting(request.userCode, caller: caller, spend: true)
        let client = try await client(of: waiting.pending)
        let signIn = SignIn(
            userID: token.userID, authTime: Int(token.iat), amr: token.amr,
            sessionID: Base64URL.encode(Secrets.randomBytes(16)), credentialID: token.credentialID,
            acr: (AuthenticationLevel(acr: token.acr) ?? .presence).rawValue)
        let lifetime = waiting.expiresAt.timeIntervalSince(now())
        guard lifetime > 0 else { throw ServiceError.notFound(Self.unknownCode) }
        try await grants.store(
            .deviceDecision, handleHash: waiting.deviceCodeHash,
            DeviceAuthorization.Decision(approved: request.allow, signIn: request.allow ? signIn : nil),
            lifetime: lifetime, subject: token.userID, credentialID: request.allow ? signIn.credentialBytes : nil)
        await audit.record(
            request.allow ? .deviceApproved : .deviceDenied, application: issuer.application.id,
            actor: .user(token.userID), userID: token.userID, credentialID: signIn.credentialBytes, caller: caller,
            details: [
                "client_id": .string(client.clientID), "scope": .string(waiting.pending.scopes.joined(separator: " ")),
            ])
        return DeviceDecisionResponse(traceID: caller.traceID, decision: request.allow ? "approved" : "denied")
    }

    /// A device authorization waiting for its person.
    private struct Waiting {
        var pending: DeviceAuthorization.Pending
        var deviceCodeHash: [UInt8]
        var expiresAt: Date
    }

    /// The device authorization a typed user code names, still waiting; the user code spent with
    /// `spend`. 404 (counted against the caller's address) for any other code.
    private func waiting(_ typed: String, caller: Caller, spend: Bool) async throws -> Waiting {
        let found = try await abuse.userCodeGuess(caller) { () async throws -> Waiting? in
            guard UserCode.normalize(typed) != nil else { return nil }
            let hash = DeviceAuthorization.hash(userCode: typed)
            let pointer =
                spend
                ? try await grants.consume(.userCode, handleHash: hash, as: DeviceAuthorization.UserCodeGrant.self)
                    .found
                : try await grants.live(.userCode, handleHash: hash, as: DeviceAuthorization.UserCodeGrant.self)
            guard let deviceCodeHash = pointer.flatMap({ Base64URL.decode($0.payload.deviceCodeHash) }),
                let device = try await grants.live(
                    .deviceCode, handleHash: deviceCodeHash, as: DeviceAuthorization.Pending.self)
            else { return nil }
            return Waiting(pending: device.payload, deviceCodeHash: deviceCodeHash, expiresAt: device.record.expiresAt)
        }
        guard let found else { throw ServiceError.notFound(Self.unknownCode) }
        return found
    }

    private func client(of pending: DeviceAuthorization.Pending) async throws -> OAuthClientRecord {
        guard let client = try await issuer.client(pending.clientID, store: store) else {
            throw ServiceError.notFound("The application that asked for this sign-in was removed")
        }
        return client
    }
}
