import Foundation
import Hummingbird
import Testing

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

    @Test("GET /openapi.yaml lists exactly the routes of Routes.table")
    func documentMatchesRoutes() async throws {
        try await TestServer.with { api in
            let reply = try await api.send(.get, "/openapi.yaml")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(reply.text.hasPrefix("openapi: 3.1.0"))
            let documented = Self.operations(in: reply.text)
            #expect(documented.count > 10)
            #expect(documented == Set(Routes.table))
            #expect(Routes.table.count == Set(Routes.table).count)
        }
    }

    @Test("every route of the table answers on the router (no 404 for want of a route)")
    func everyRouteAnswers() async throws {
        try await TestServer.with { api in
            for route in Routes.table {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let path = parts[1].replacingOccurrences(of: "{user_id}", with: "alice")
                    .replacingOccurrences(of: "{credential_id}", with: "AAAA")
                    .replacingOccurrences(of: "{id}", with: UUID().uuidString)
                let reply = try await api.send(HTTPRequest.Method(parts[0]) ?? .get, path, raw: "{}")
                #expect(reply.status != .notFound, "\(route): \(reply.text)")
                #expect(reply.status != .internalServerError, "\(route): \(reply.text)")
            }
        }
    }
}
