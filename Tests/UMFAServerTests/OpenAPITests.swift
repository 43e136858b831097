import Foundation
import Hummingbird
import Testing
import UMFAContract

@testable import UMFAServer

@Suite("OpenAPI document")
struct OpenAPITests {
    /// `METHOD /path` for every operation under `paths:` in the YAML.
    static func operations(in yaml: String) -> Set<String> {
        var operations: Set<String> = []
        var inPaths = false
        var currentPath: String?
        let methods: Set<String> = ["get", "post", "put", "patch", "delete"]
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: true) {
            let indent = line.prefix(while: { $0 == " " }).count
            let text = line.trimmingCharacters(in: .whitespaces)
            if indent == 0 {
                inPaths = text == "paths:"
                continue
            }
            guard inPaths, text.hasSuffix(":") else { continue }
            let name = String(text.dropLast())
            if indent == 2 {
                currentPath = name
            } else if indent == 4, methods.contains(name), let currentPath {
                operations.insert(name.uppercased() + " " + currentPath)
            }
        }
        return operations
    }

    /// `METHOD /path` of every operation the router is built from.
    static let table = APIOperation.allCases.map { "\($0.method) \($0.path)" }

    @Test("GET /openapi.yaml lists exactly the operations the router is built from")
    func documentMatchesRoutes() async throws {
        try await TestServer.with { api in
            let reply = try await api.send(.get, "/openapi.yaml")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(reply.text.hasPrefix("openapi: 3.1.0"))
            let documented = Self.operations(in: reply.text)
            #expect(documented.count > 10)
            #expect(documented == Set(Self.table))
            #expect(Self.table.count == Set(Self.table).count)
        }
    }

    @Test("GET /openapi.yaml serves the contract's generated document, byte for byte the committed file")
    func servesTheGeneratedDocument() async throws {
        let committed = try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Sources/UMFAContract/OpenAPI/openapi.yaml"))
        try await TestServer.with { api in
            let reply = try await api.send(.get, "/openapi.yaml")
            #expect(reply.status == .ok)
            #expect(reply.text == ContractDocument.yaml)
            #expect(Data(reply.text.utf8) == committed, "stale: run scripts/gen-docs.sh")
        }
    }

    @Test("every route of the table answers on the router (no 404 for want of a route)")
    func everyRouteAnswers() async throws {
        try await TestServer.with { api in
            for route in Self.table {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let path = parts[1].replacingOccurrences(of: "{user_id}", with: "alice")
                    .replacingOccurrences(of: "{credential_id}", with: "AAAA")
                    .replacingOccurrences(of: "{id}", with: UUID().uuidString)
                    .replacingOccurrences(of: "{key_id}", with: "k1")
                    .replacingOccurrences(of: "{application_id}", with: UUID().uuidString)
                    .replacingOccurrences(of: "{client_id}", with: "umfa_ci_unknown")
                let reply = try await api.send(HTTPRequest.Method(parts[0]) ?? .get, path, raw: "{}")
                // A 404 of the route itself (an unknown issuer, application or client) names what it
                // did not find; a missing route is Hummingbird's bare "Not Found".
                #expect(
                    reply.status != .notFound
                        || reply["message"]?.stringValue ?? reply["error_description"]?.stringValue
                            != "Not Found",
                    "\(route): \(reply.text)")
                #expect(reply.status != .internalServerError, "\(route): \(reply.text)")
            }
        }
    }
}
