import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// A browser's part of the authorization code flow, as tests drive it: the authorization
/// request with PKCE, the hosted page's JSON routes with a software authenticator, the SSO
/// cookie, and the code's redemption.
struct Authorization: Sendable {
    static let redirectURI = "https://rp.example/callback"

    let verifier: String
    let state: String
    let nonce: String

    init() {
        verifier = Base64URL.encode(SecureRandom.bytes(32))
        state = Base64URL.encode(SecureRandom.bytes(8))
        nonce = Base64URL.encode(SecureRandom.bytes(8))
    }

    var challenge: String { Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) }

    /// The usual query: code, S256, state, nonce, and `extra` (which may replace any of them).
    func query(client: String, scope: String, redirectURI: String = Self.redirectURI, extra: [String: String?] = [:])
        -> [String: String]
    {
        var items: [String: String?] = [
            "response_type": "code", "client_id": client, "redirect_uri": redirectURI, "scope": scope,
            "state": state, "nonce": nonce, "code_challenge": challenge, "code_challenge_method": "S256",
        ]
        for (name, value) in extra { items[name] = value }
        return items.compactMapValues { $0 }
    }
}

/// A redirect's query, by name.
struct RedirectParameters {
    let base: String
    let values: [String: String]

    init(_ location: String) throws {
        guard let components = URLComponents(string: location) else { throw TestFailure("not a URL: \(location)") }
        var base = components
        base.query = nil
        self.base = base.string ?? ""
        values = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    subscript(_ name: String) -> String? { values[name] }
}

extension Reply {
    /// The parameters of the `Location` a redirect answer carries.
    func redirect() throws -> RedirectParameters {
        guard let location = headers[.location] else { throw TestFailure("no Location: \(status) \(text.prefix(200))") }
        return try RedirectParameters(location)
    }

    /// The parameters of the `redirect_to` a hosted-page step answers.
    func redirectTo() throws -> RedirectParameters {
        guard let location = self["redirect_to"]?.stringValue else { throw TestFailure("no redirect_to: \(text)") }
        return try RedirectParameters(location)
    }
}

extension API {
    /// A code-flow client: `authorization_code` + `refresh_token`, secret by HTTP Basic unless
    /// `method` says otherwise.
    func codeClient(
        _ app: TestApplication, firstParty: Bool = false, method: String = "client_secret_basic",
        scope: String = "openid profile email phone offline_access", postLogout: [String]? = nil
    ) async throws -> TestOAuthClient {
        try await createOAuthClient(
            app,
            OAuthClientRequest(
                clientName: "Shop", redirectURIs: [Authorization.redirectURI],
                grantTypes: ["authorization_code", "refresh_token"], responseTypes: ["code"],
                tokenEndpointAuthMethod: method, scope: scope, postLogoutRedirectURIs: postLogout,
                firstParty: firstParty))
    }

    /// A GET with a query and an optional cookie, as a browser sends it.
    func browse(_ path: String, query: [String: String] = [:], cookie: String? = nil) async throws -> Reply {
        var uri = path
        if !query.isEmpty {
            uri +=
                "?"
                + query.sorted { $0.key < $1.key }.map { Self.formEncode($0.key) + "=" + Self.formEncode($0.value) }
                .joined(separator: "&")
        }
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        let response = try await client.execute(uri: uri, method: .get, headers: headers, body: nil)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    /// `GET <issuer>/authorize`.
    func authorize(_ app: TestApplication, _ query: [String: String], cookie: String? = nil) async throws -> Reply {
        try await browse(APIOperation.oauthAuthorize.path(["application_id": app.id]), query: query, cookie: cookie)
    }

    /// The interaction handle and the view the hosted page was rendered with.
    static func page(_ reply: Reply) throws -> (interaction: String, view: String) {
        func meta(_ name: String) throws -> String {
            let marker = "name=\"\(name)\" content=\""
            guard let start = reply.text.range(of: marker),
                let end = reply.text[start.upperBound...].firstIndex(of: "\"")
            else { throw TestFailure("no \(name) on the page: \(reply.status) \(reply.text.prefix(300))") }
            return String(reply.text[start.upperBound..<end])
        }
        return (try meta("umfa-interaction"), try meta("umfa-view"))
    }

    /// A POST of a hosted-page JSON route.
    func interaction(_ operation: APIOperation, _ app: TestApplication, _ body: some ContractBody) async throws
        -> Reply
    {
        try await send(.post, operation.path(["application_id": app.id]), json: try .encoding(body))
    }

    /// Creates an account with a passkey on `device`; the reply of create-account/verify.
    func createAccount(
        _ app: TestApplication, interaction: String, email: String, device: Device, givenName: String? = "Alice",
        familyName: String? = "Example"
    ) async throws -> Reply {
        let options = try await self.interaction(
            .interactionCreateAccountOptions, app,
            InteractionCreateAccountRequest(
                interaction: interaction, email: email, givenName: givenName, familyName: familyName,
                phoneNumber: "+15555550100", deviceName: "Test phone"))
        guard options.status == .ok, let publicKey = options["publicKey"] else {
            throw TestFailure("create-account/options failed: \(options.status) \(options.text)")
        }
        let credential = try device.create(try publicKey.decoded(CreationOptionsJSON.self), userVerified: true)
        return try await self.interaction(
            .interactionCreateAccountVerify, app,
            InteractionCreateAccountVerifyRequest(interaction: interaction, credential: credential))
    }

    /// Signs in with the passkey on `device` (by `login`, or discoverable); the verify reply.
    func signIn(_ app: TestApplication, interaction: String, login: String?, device: Device) async throws -> Reply {
        let options = try await self.interaction(
            .interactionSignInOptions, app, InteractionSignInOptionsRequest(interaction: interaction, login: login))
        guard options.status == .ok, let publicKey = options["publicKey"] else {
            throw TestFailure("sign-in/options failed: \(options.status) \(options.text)")
        }
        let credential = try device.get(try publicKey.decoded(RequestOptionsJSON.self), userVerified: true)
        return try await self.interaction(
            .interactionSignInVerify, app,
            InteractionSignInVerifyRequest(interaction: interaction, credential: credential))
    }

    /// The consent answer.
    func consent(_ app: TestApplication, interaction: String, allow: Bool) async throws -> Reply {
        try await self.interaction(
            .interactionConsent, app, InteractionConsentRequest(interaction: interaction, allow: allow))
    }

    /// The code grant at the token endpoint, with HTTP Basic for a confidential client.
    func redeem(
        _ app: TestApplication, client: TestOAuthClient, code: String, verifier: String,
        redirectURI: String = Authorization.redirectURI
    ) async throws -> Reply {
        var parameters = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("code_verifier", verifier),
        ]
        guard let secret = client.secret else {
            parameters.append(("client_id", client.id))
            return try await form(.oauthToken, app, parameters)
        }
        return try await form(.oauthToken, app, parameters, basic: (client.id, secret))
    }

    /// The refresh grant.
    func refresh(_ app: TestApplication, client: TestOAuthClient, token: String) async throws -> Reply {
        let parameters = [("grant_type", "refresh_token"), ("refresh_token", token)]
        guard let secret = client.secret else {
            return try await form(.oauthToken, app, parameters + [("client_id", client.id)])
        }
        return try await form(.oauthToken, app, parameters, basic: (client.id, secret))
    }

    /// `GET <issuer>/userinfo` with a Bearer token.
    func userinfo(_ app: TestApplication, token: String) async throws -> Reply {
        try await send(.get, APIOperation.oauthUserinfo.path(["application_id": app.id]), bearer: token)
    }

    /// A new account through the whole flow with consent: the code's redirect and the SSO cookie.
    func signUpThroughFlow(
        _ app: TestApplication, client: TestOAuthClient, flow: Authorization, email: String, device: Device,
        scope: String = "openid profile email offline_access", extra: [String: String?] = [:]
    ) async throws -> (redirect: RedirectParameters, cookie: String) {
        let page = try await authorize(
            app, flow.query(client: client.id, scope: scope, extra: extra.merging(["prompt": "create"]) { $1 }))
        let (interaction, _) = try Self.page(page)
        var reply = try await createAccount(app, interaction: interaction, email: email, device: device)
        guard reply.status == .ok, let setCookie = reply.headers[.setCookie] else {
            throw TestFailure("create-account/verify failed: \(reply.status) \(reply.text)")
        }
        if reply["next"]?.stringValue == "consent" {
            reply = try await consent(app, interaction: interaction, allow: true)
        }
        guard let location = reply["redirect_to"]?.stringValue else {
            throw TestFailure("no redirect after sign-up: \(reply.text)")
        }
        let cookie = String(setCookie.split(separator: ";")[0])
        return (try RedirectParameters(location), cookie)
    }
}
