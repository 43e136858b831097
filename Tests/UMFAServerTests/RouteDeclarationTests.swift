import Foundation
import Hummingbird
import Testing
import UMFAContract

@testable import UMFAServer

/// The router does what each operation's declaration says: the issuer of every route under
/// `/oidc/{application_id}` is resolved before anything else (an unknown one is refused in the
/// route's declared error shape, even when its body is malformed), and every API-key route
/// refuses a caller without a key before it judges the body.
@Suite("Routes follow their declarations")
struct RouteDeclarationTests {
    static func method(_ operation: APIOperation) -> HTTPRequest.Method {
        HTTPRequest.Method(operation.method) ?? .get
    }

    static func path(_ operation: APIOperation, issuer: String) -> String {
        operation.path([
            "application_id": issuer, "flow_id": "flow", "client_id": "umfa_ci_unknown", "user_id": "alice",
            "credential_id": "AAAA", "id": UUID().uuidString, "key_id": "k1",
        ])
    }

    @Test("an unknown issuer is refused in the route's declared shape, before a malformed body is judged")
    func unknownIssuer() async throws {
        try await TestServer.with { api in
            let issuer = UUID().uuidString.lowercased()
            let operations = APIOperation.allCases.filter { $0.declaration.isUnderIssuer }
            #expect(operations.count > 20)
            for operation in operations {
                let reply = try await api.send(
                    Self.method(operation), Self.path(operation, issuer: issuer), raw: "{not json")
                // The flow's problems know no 404: an issuer it cannot find is invalid input.
                let expected: HTTPResponse.Status = operation.errorShape == .problem ? .badRequest : .notFound
                #expect(reply.status == expected, "\(operation): \(reply.status) \(reply.text)")
                switch operation.errorShape {
                case .oauth:
                    #expect(reply["error"]?.stringValue == "invalid_request", "\(operation): \(reply.text)")
                    #expect(reply["error_description"]?.stringValue == "Unknown issuer", "\(operation)")
                case .problem:
                    #expect(
                        reply.headers[.contentType]?.hasPrefix("application/problem+json") == true,
                        "\(operation): \(reply.headers)")
                    #expect(reply["type"]?.stringValue == "urn:umfa:problem:invalid-input", "\(operation)")
                    #expect(reply["title"]?.stringValue == "Unknown issuer", "\(operation): \(reply.text)")
                case .umfa, .page:
                    #expect(reply["message"]?.stringValue == "Unknown issuer", "\(operation): \(reply.text)")
                }
                #expect(reply["trace_id"]?.stringValue?.isEmpty == false, "\(operation): \(reply.text)")
            }
        }
    }

    @Test("every API-key route refuses a caller without a key before judging its body")
    func apiKeyFirst() async throws {
        try await TestServer.with { api in
            let operations = APIOperation.allCases.filter { $0.access == .apiKey }
            #expect(operations.count >= 9)
            for operation in operations {
                let reply = try await api.send(
                    Self.method(operation), Self.path(operation, issuer: UUID().uuidString), raw: "{not json")
                #expect(reply.status == .unauthorized, "\(operation): \(reply.status) \(reply.text)")
                #expect(
                    reply["message"]?.stringValue == APIKeyAuthentication.missingKey, "\(operation): \(reply.text)")
            }
        }
    }

    @Test("every admin route refuses a caller without the admin token")
    func adminFirst() async throws {
        try await TestServer.with { api in
            for operation in APIOperation.allCases where operation.access == .adminToken {
                let reply = try await api.send(
                    Self.method(operation), Self.path(operation, issuer: UUID().uuidString), raw: "{not json")
                #expect(reply.status == .unauthorized, "\(operation): \(reply.status) \(reply.text)")
            }
        }
    }
}
