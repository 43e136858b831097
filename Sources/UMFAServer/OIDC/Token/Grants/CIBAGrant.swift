import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// `grant_type=urn:openid:params:grant-type:ciba` (OpenID CIBA Core 1.0 §10.1, §11): the client
/// polls with its `auth_req_id` until the person answers the approval on their device
/// (``BackchannelAuthentication``). Approved, the request is consumed exactly once, on any
/// instance, for the tokens of that approval's sign-in; denied (or failed: a decision that does
/// not match its signature, docs/ciba.md), `access_denied`; unanswered, `authorization_pending`
/// or, for a poll sooner than the interval, `slow_down`; past its expiry, `expired_token`.
struct CIBAGrant: GrantHandler {
    static let grantType = "urn:openid:params:grant-type:ciba"
    let grants: OAuthGrants
    let userTokens: UserTokens
    let store: any OutOfBandStore
    let sealed: SealedSecrets
    let now: @Sendable () -> Date

    func grant(_ input: GrantInput) async throws -> OAuthTokenResponse {
        try input.requireRegistered(for: Self.grantType)
        let authReqID = try input.form.require("auth_req_id")
        let hash = Secrets.hash(authReqID)
        // Step 1 (§11): a request of this issuer, live, the client's own.
        guard authReqID.utf8.count <= 128,
            let request = try await grants.live(
                .cibaRequest, handleHash: hash, as: BackchannelAuthentication.Pending.self)
        else { throw try await grants.spentOrExpired(.cibaRequest, handleHash: hash, handle: "auth_req_id") }
        guard request.payload.clientID.utf8.elementsEqual(input.client.clientID.utf8) else {
            throw OAuthError(code: .invalidGrant, "The auth_req_id was issued to another client")
        }
        // Step 2: the approval's end, if any.
        let transaction = try await request.payload.transactionID.asyncMap {
            try await store.outOfBandTransaction(id: $0)
        }
        let status = transaction.map { OutOfBandService.currentStatus($0, now: now()) } ?? .pending
        switch status {
        case .pending:
            throw try await grants.pending(
                .cibaRequest, request, handleHash: hash, waitingFor: "The person has not answered yet")
        case .expired:
            throw OAuthError(code: .expiredToken, "The request expired; start again")
        case .denied, .failed:
            _ = try await grants.consume(.cibaRequest, handleHash: hash, as: BackchannelAuthentication.Pending.self)
            throw OAuthError(code: .accessDenied, "The person denied the request")
        case .succeeded:
            break
        }
        // Step 3: taken once; the tokens of the approval's sign-in (§11, RFC 6749 §5.1).
        guard let transaction,
            try await grants.consume(.cibaRequest, handleHash: hash, as: BackchannelAuthentication.Pending.self)
                .found != nil
        else { throw OAuthError(code: .invalidGrant, "The auth_req_id is invalid or was used") }
        let approved = try ApprovedSignIn(transaction, sealed: sealed)
        let signIn = SignIn(
            userID: approved.userID, authTime: approved.authTime, amr: approved.amr,
            sessionID: Base64URL.encode(Secrets.randomBytes(16)), credentialID: Base64URL.encode(approved.credentialID),
            acr: approved.level.rawValue, authorizationDetails: request.payload.authorizationDetails)
        let confidential = input.client.authenticationMethod.isConfidential
        return try await userTokens.issue(
            to: input.client, signIn: signIn, scopes: request.payload.scopes,
            family: "f" + Base64URL.encode(Secrets.randomBytes(16)), nonce: nil, jkt: input.binding.jkt,
            refreshJKT: confidential ? nil : input.binding.jkt, x5t: input.binding.x5t,
            refreshX5T: confidential ? nil : input.binding.x5t)
    }
}

extension Optional {
    /// The value `transform` makes of the wrapped one, awaited; `nil` for `nil`.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
