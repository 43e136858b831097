import Foundation
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import X509

/// Client authentication at the token, introspection and revocation endpoints (RFC 6749 §2.3.1):
/// HTTP Basic with the form-encoded id and secret, `client_id` and `client_secret` in the body,
/// or a JWT signed with one of the client's registered keys (`private_key_jwt`, RFC 7523) — the
/// one the client registered, never two at once — or the client's TLS certificate (RFC 8705 §2,
/// ``MutualTLSClientAuthentication``). A wrong secret or a bad assertion counts
/// against the caller's address like a wrong API key; the right one is never limited.
struct OAuthClientAuthentication: Sendable {
    let store: any OAuthClientStore
    /// Where spent client assertions are remembered.
    let grants: OAuthGrants
    let refusals: RefusalTrail
    let abuse: AbuseGuard
    /// Opens client secrets.
    let sealed: SealedSecrets
    /// The CAs a `tls_client_auth` client's certificate must chain to (RFC 8705 §2.1).
    let mutualTLSAnchors: [Certificate]
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer

    /// The authenticated client; `invalid_client` (401) for an unknown client, a wrong secret
    /// or a method the client did not register.
    func authenticate(form: OAuthForm, authorization: String?, caller: Caller) async throws -> OAuthClientRecord {
        if form["client_assertion_type"] != nil || form["client_assertion"] != nil {
            return try await authenticateByAssertion(form: form, authorization: authorization, caller: caller)
        }
        let basic = try authorization.map(Self.basicCredentials)
        if basic != nil, form["client_secret"] != nil {
            throw OAuthError.invalidRequest("Use one client authentication method, not two")
        }
        guard let clientID = basic?.id ?? form["client_id"] else {
            refusals.clientAuthentication(.missingCredentials, clientID: nil, caller: caller)
            throw OAuthError(code: .invalidClient, "Client authentication is required")
        }
        if let basic, let named = form["client_id"], named != basic.id {
            throw OAuthError.invalidRequest("client_id does not match the authenticated client")
        }
        let secret = basic?.secret ?? form["client_secret"]
        let method: ClientAuthenticationMethod =
            basic != nil ? .clientSecretBasic : (secret != nil ? .clientSecretPost : .none)
        let failure = OAuthError(code: .invalidClient, "Client authentication failed", basicChallenge: basic != nil)
        guard
            let client = try await issuer.client(clientID, store: store)
        else { try await refuse(caller, counting: true, .unknownClient, clientID: clientID, failure) }
        // RFC 8705 §2: a mutual-TLS client names itself with client_id and proves itself with
        // its certificate alone; with a secret beside it, the methods differ below.
        if client.authenticationMethod.usesCertificate, basic == nil, secret == nil {
            do {
                try await MutualTLSClientAuthentication(anchors: mutualTLSAnchors, now: now())
                    .verify(client, presented: caller.clientCertificate)
            } catch let refusal as MutualTLSClientAuthentication.Refusal {
                try await refuse(
                    caller, counting: refusal.counted,
                    caller.clientCertificate == nil ? .noCertificate : .badCertificate, clientID: clientID,
                    OAuthError(code: .invalidClient, "Client authentication failed: \(refusal.message)"))
            }
            return client
        }
        // A public client named by HTTP Basic with an empty password, as device clients such as
        // oidc-agent send it, is identified as `none` identifies it: there is no secret to check.
        if client.authenticationMethod == .none, method == .clientSecretBasic, basic?.secret.isEmpty == true {
            return client
        }
        // A client_secret_jwt client's secret is for signing assertions, never sent itself.
        guard client.authenticationMethod == method else {
            // The client exists: a mismatch of methods is a misconfiguration, not a guess.
            try await refuse(caller, counting: false, .wrongMethod, clientID: clientID, failure)
        }
        if method.usesSecret {
            guard let secret, let stored = client.secretHash, constantTimeEqual(Secrets.hash(secret), stored) else {
                try await refuse(caller, counting: true, .wrongSecret, clientID: clientID, failure)
            }
        }
        return client
    }

    /// The client a request names before it is authenticated: the client assertion's `iss`, the
    /// HTTP Basic id or the form's `client_id`, in the order ``authenticate(form:authorization:caller:)``
    /// reads them; `nil` when it names none (or not readably: authentication then says why).
    static func claimedClientID(form: OAuthForm, authorization: String?) -> String? {
        if let assertion = form["client_assertion"] { return ClientAssertion.claimedClient(assertion) }
        if let authorization, let basic = try? basicCredentials(authorization) { return basic.id }
        return form["client_id"]
    }

    /// `private_key_jwt`: the assertion's `iss` names the client, whose registered keys must
    /// verify it (RFC 7523 §3); its `jti` is accepted once on any instance.
    private func authenticateByAssertion(form: OAuthForm, authorization: String?, caller: Caller) async throws
        -> OAuthClientRecord
    {
        guard authorization == nil, form["client_secret"] == nil else {
            throw OAuthError.invalidRequest("Use one client authentication method, not two")
        }
        guard form["client_assertion_type"] == ClientAssertion.type else {
            refusals.clientAuthentication(.badAssertion, clientID: form["client_id"], caller: caller)
            throw OAuthError(code: .invalidClient, "client_assertion_type must be \(ClientAssertion.type)")
        }
        guard let assertion = form["client_assertion"], let clientID = ClientAssertion.claimedClient(assertion) else {
            refusals.clientAuthentication(.badAssertion, clientID: form["client_id"], caller: caller)
            throw OAuthError(code: .invalidClient, "client_assertion must be a JWT whose iss is the client_id")
        }
        if let named = form["client_id"], named != clientID {
            throw OAuthError.invalidRequest("client_id does not match the client assertion's iss")
        }
        let failure = OAuthError(code: .invalidClient, "Client authentication failed")
        guard
            let client = try await issuer.client(clientID, store: store)
        else { try await refuse(caller, counting: true, .unknownClient, clientID: clientID, failure) }
        let verification: ClientAssertion.Verification
        switch (client.authenticationMethod, client.jwks, client.sealedSecret) {
        case (.privateKeyJWT, .some(let jwks), _):
            verification = .jwks(jwks)
        case (.clientSecretJWT, _, .some(let sealed)):
            verification = .secret(
                try self.sealed.openBytes(sealed, for: .clientSecret(clientID: client.clientID)))
        default:
            try await refuse(caller, counting: false, .wrongMethod, clientID: clientID, failure)
        }
        let now = self.now()
        let checked: ClientAssertion
        do {
            checked = try ClientAssertion(
                assertion, clientID: clientID, verification: verification,
                audiences: [
                    issuer.tokenEndpoint, issuer.issuer,
                    // RFC 8705 §5: a client using the alias may name the alias's token endpoint.
                    caller.address.url(of: "token", at: issuer),
                ], now: now)
        } catch {
            try await refuse(
                caller, counting: true, .badAssertion, clientID: clientID,
                OAuthError(code: .invalidClient, "Client authentication failed: \(error.message)"))
        }
        do {
            try await grants.store(
                .clientAssertion, handleHash: Secrets.hash("assertion:\(clientID):\(checked.jti)"), SeenAssertion(),
                lifetime: max(1, checked.expiresAt.timeIntervalSince(now)) + ClientAssertion.skew)
        } catch let error as StoreError where error.code == .conflict {
            refusals.clientAuthentication(.replayedAssertion, clientID: clientID, caller: caller)
            throw OAuthError(code: .invalidClient, "The client assertion was used before (its jti)")
        }
        return client
    }

    /// Nothing: the row is the record of the assertion.
    private struct SeenAssertion: Codable, Sendable {}

    /// Throws `failure`, counting it against the caller's address when `counting` (a guess, not a
    /// misconfiguration); an address over the limit gets the limit's answer instead. Either way the
    /// operator's trace records `reason` for `clientID` (``RefusalTrail``).
    func refuse(
        _ caller: Caller, counting: Bool, _ reason: ClientAuthenticationRefusal, clientID: String?,
        _ failure: OAuthError
    ) async throws -> Never {
        refusals.clientAuthentication(reason, clientID: clientID, caller: caller)
        do {
            try await abuse.refuseCredential(caller, counting: counting, .unauthenticated(failure.description))
        } catch let error as ServiceError where error.code == .unauthenticated {
            throw failure
        }
    }

    /// `Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 §2.3.1).
    static func basicCredentials(_ header: String) throws -> (id: String, secret: String) {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":"),
            let id = PercentEncoding.decode(text[..<colon], plusAsSpace: false),
            let secret = PercentEncoding.decode(text[text.index(after: colon)...], plusAsSpace: false), !id.isEmpty
        else {
            throw OAuthError(code: .invalidClient, "The Authorization header is not HTTP Basic credentials")
        }
        return (id, secret)
    }
}
