import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFATestSupport
import UMFAWebAuthn

@testable import UMFAServer

@Suite("Server behaviour")
struct ServerBehaviourTests {
    @Test("trace_id: echoed from the body or the query string in successes and errors, else a new UUID")
    func traceIDs() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            let listPath = APIOperation.listUserCredentials.path(["user_id": "nobody"]) + "?application_id=\(app.id)"
            let listed = try await api.send(.get, listPath + "&trace_id=q-1", bearer: app.apiKey)
            expectError(listed, .notFound, message: "Unknown user", traceID: "q-1")
            let shown = try await api.send(
                .get, APIOperation.getApplication.path(["id": app.id]) + "?trace_id=q-2", bearer: TestServer.adminToken)
            expectTraceID(shown, "q-2")
            let refused = try await api.send(.get, APIOperation.listApplications.path + "?trace_id=q-3")
            expectError(refused, .unauthorized, traceID: "q-3")
            let missing = try await api.send(.get, "/nowhere?trace_id=q-4")
            expectError(missing, .notFound, traceID: "q-4")
            let fresh = try await api.send(.get, listPath, bearer: app.apiKey)
            expectError(fresh, .notFound, message: "Unknown user")

            let options = try await api.post(
                APIOperation.authenticationOptions.path,
                .object(["application_id": .string(app.id), "trace_id": "b-1"]))
            expectTraceID(options, "b-1")
            let generated = try await api.authenticationOptions(app, user: "x")
            expectTraceID(generated, nil)
            for unusable in [String(repeating: "t", count: 129), "has space", "", "line\nbreak"] {
                let reply = try await api.post(
                    APIOperation.authenticationOptions.path,
                    .object(["application_id": .string(app.id), "trace_id": .string(unusable)]))
                expectTraceID(reply, nil)
            }
            let numeric = try await api.send(
                .post, APIOperation.authenticationOptions.path,
                raw: "{\"application_id\": \"\(app.id)\", \"trace_id\": 5}")
            expectTraceID(numeric, nil)
        }
    }

    @Test("user ids in paths are percent-decoded: alice@example.com and a b/c")
    func percentDecodedUserIDs() async throws {
        try await TestServer.with { api in
            let app = try await api.createApplication()
            for (user, encoded) in [("alice@example.com", "alice%40example.com"), ("a b/c", "a%20b%2Fc")] {
                let registered = try await api.register(
                    app, user: user, device: Device.make(),
                    enrollmentToken: try await api.enrollmentToken(app, user: user))
                let list = try await api.send(
                    .get, "/api/umfa/users/\(encoded)/credentials?application_id=\(app.id)", bearer: app.apiKey)
                #expect(list.status == .ok, "\(user): \(list.text)")
                #expect(
                    list["credentials"]?.arrayValue?.first?["credential_id"]?.stringValue == registered.credentialID)
                let removed = try await api.send(
                    .delete,
                    "/api/umfa/users/\(encoded)/credentials/\(registered.credentialID)?application_id=\(app.id)",
                    bearer: app.apiKey)
                #expect(removed.status == .ok, "\(user): \(removed.text)")
                #expect(removed["removed"]?.boolValue == true)
                let again = try await api.send(
                    .delete,
                    "/api/umfa/users/\(encoded)/credentials/\(registered.credentialID)?application_id=\(app.id)",
                    bearer: app.apiKey)
                expectError(again, .notFound, message: "Unknown credential")
            }
            let literal = try await api.send(
                .get,
                APIOperation.listUserCredentials.path(["user_id": "alice@example.com"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            #expect(literal.status == .ok)
            let broken = try await api.send(
                .get, "/api/umfa/users/%E0%A4%A/credentials?application_id=\(app.id)", bearer: app.apiKey)
            expectError(broken, .badRequest, message: "user_id must be percent-encoded UTF-8")
        }
    }

    @Test("storage failures map to 409 and 503 in the error shape with the request's trace id; others to 500")
    func storeErrorMapping() async throws {
        let router = Router(context: UMFARequestContext.self)
        // A machine busy with the rest of the suite may take long to hand the body over; this
        // test is about the error shapes, not the body timeout.
        router.add(
            middleware: RequestScopeMiddleware(
                trustForwardedFor: false, bodyReadTimeout: ServerTransport.patientTimeout))
        router.add(middleware: ErrorMiddleware())
        router.post("/fail/:kind") { request, context -> Response in
            _ = try await JSONExchange.read(request, context: context)
            switch context.parameters.get("kind") {
            case "conflict": throw StoreError(.conflict, "duplicate key value")
            case "unavailable": throw StoreError(.unavailable, "connection refused")
            case "corrupt": throw StoreError(.corrupt, "column is empty")
            default: throw CancellationError()
            }
        }
        let app = Application(router: router)
        try await app.exercise(.router) { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("conflict", .conflict, "The request conflicts with stored data"),
                ("unavailable", .serviceUnavailable, "The database is unavailable; try again later"),
                ("corrupt", .internalServerError, "Internal server error"),
                ("other", .internalServerError, "Internal server error"),
            ]
            for (kind, status, message) in cases {
                let response = try await client.execute(
                    uri: "/fail/\(kind)", method: .post, body: ByteBuffer(string: "{\"trace_id\": \"s-\(kind)\"}"))
                let text = String(buffer: response.body)
                let reply = Reply(
                    status: response.status, headers: response.headers, text: text,
                    json: try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
                expectError(reply, status, message: message, traceID: "s-\(kind)")
                #expect(!text.contains("connection refused"))
                #expect(!text.contains("duplicate key"))
            }
        }
    }
}
