import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

/// An OAuth client as the admin API made it.
struct TestOAuthClient: Sendable {
    let id: String
    let secret: String?
}

extension API {
    /// Registers an OAuth client for `app` through the admin API (201 required).
    func createOAuthClient(_ app: TestApplication, _ request: OAuthClientRequest) async throws -> TestOAuthClient {
        let reply = try await send(
            .post, APIOperation.createOAuthClient.path(["id": app.id]), json: try .encoding(request),
            bearer: TestServer.adminToken)
        guard reply.status == .created, let id = reply["client_id"]?.stringValue else {
            throw TestFailure("creating an OAuth client failed: \(reply.status) \(reply.text)")
        }
        return TestOAuthClient(id: id, secret: reply["client_secret"]?.stringValue)
    }

    /// A machine client (`client_credentials`, secret by HTTP Basic) with `scope`.
    func machineClient(_ app: TestApplication, scope: String = "orders:read orders:write", method: String? = nil)
        async throws -> TestOAuthClient
    {
        try await createOAuthClient(
            app,
            OAuthClientRequest(
                clientName: "Billing", grantTypes: ["client_credentials"], responseTypes: [],
                tokenEndpointAuthMethod: method, scope: scope))
    }

    /// A form POST to an issuer endpoint, with HTTP Basic credentials when `basic` is given.
    func form(
        _ operation: APIOperation, _ app: TestApplication, _ parameters: [(String, String)],
        basic: (String, String)? = nil, contentType: String = "application/x-www-form-urlencoded",
        dpop: String? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [.contentType: contentType]
        if let dpop { headers[DPoPKey.header] = dpop }
        if let (id, secret) = basic {
            let pair = Self.formEncode(id) + ":" + Self.formEncode(secret)
            headers[.authorization] = "Basic " + Data(pair.utf8).base64EncodedString()
        }
        let body = parameters.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&")
        let response = try await client.execute(
            uri: operation.path(["application_id": app.id]), method: .post, headers: headers,
            body: ByteBuffer(string: body))
        let text = String(buffer: response.body)
        return Reply(
            status: response.status, headers: response.headers, text: text,
            json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// An RFC 6749 §5.2 error answer with `code`, a description and a trace id.
func expectOAuthError(
    _ reply: Reply, _ status: HTTPResponse.Status, _ code: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["error"]?.stringValue == code, "\(reply.text)", sourceLocation: sourceLocation)
    #expect(reply["error_description"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
    #expect(reply["trace_id"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
    #expect(reply.headers[.cacheControl] == "no-store", sourceLocation: sourceLocation)
}
