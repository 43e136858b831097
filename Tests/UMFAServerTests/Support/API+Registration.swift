import Foundation
import Hummingbird
import HummingbirdTesting
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

extension API {
    /// An initial access token the admin issued (201 required).
    func initialAccessToken(_ app: TestApplication, ttl: Int? = nil, uses: Int? = nil, scope: String? = nil)
        async throws -> String
    {
        let reply = try await send(
            .post, APIOperation.createInitialAccessToken.path(["id": app.id]),
            json: try .encoding(InitialAccessTokenRequest(ttlSeconds: ttl, uses: uses, scope: scope)),
            bearer: TestServer.adminToken)
        guard reply.status == .created, let token = reply["initial_access_token"]?.stringValue else {
            throw TestFailure("initial-access-tokens failed: \(reply.status) \(reply.text)")
        }
        return token
    }

    /// A request to a registration endpoint (RFC 7591 / RFC 7592): `authorization` is the whole
    /// header value (`Bearer …` or `DPoP …`), `dpop` a proof.
    func registration(
        _ method: HTTPRequest.Method, _ app: TestApplication, client: String? = nil, json: JSONValue? = nil,
        authorization: String?, dpop: String? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let authorization { headers[.authorization] = authorization }
        if let dpop { headers[DPoPKey.header] = dpop }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONEncoder().encode(json))
        }
        let path =
            client.map { APIOperation.oauthReadClientRegistration.path(["application_id": app.id, "client_id": $0]) }
            ?? APIOperation.oauthRegisterClient.path(["application_id": app.id])
        let response = try await self.client.execute(uri: path, method: method, headers: headers, body: body)
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }
}
