import Foundation
import Hummingbird
import Testing
import UMFAContract

@Suite("Public routes")
struct PublicRoutesTests {
    @Test("JWKS lists the signing key; health is ok; the home page links the API")
    func jwksAndHealth() async throws {
        try await TestServer.with { api in
            let jwks = try await api.send(.get, APIOperation.jwks.path)
            #expect(jwks.status == .ok)
            #expect(jwks.headers[.cacheControl] == "public, max-age=300")
            let keys = try #require(jwks["keys"]?.arrayValue)
            let members = Dictionary(
                uniqueKeysWithValues: keys.map {
                    ($0["alg"]?.stringValue ?? "", Set($0.objectValue?.keys.map { $0 } ?? []))
                })
            #expect(
                members == [
                    "RS256": ["kty", "kid", "use", "alg", "n", "e"],
                    "ES256": ["kty", "kid", "use", "alg", "crv", "x", "y"],
                    "EdDSA": ["kty", "kid", "use", "alg", "crv", "x"],
                ])
            #expect(keys.allSatisfy { ($0["kid"]?.stringValue?.count ?? 0) == 43 })
            let rsa = try #require(keys.first { $0["kty"]?.stringValue == "RSA" })
            #expect(rsa["e"]?.stringValue == "AQAB")
            let health = try await api.send(.get, "/health")
            #expect(health.status == .ok)
            #expect(health["status"]?.stringValue == "ok")
            expectTraceID(health, nil)
            let traced = try await api.send(.get, "/health?trace_id=h-1")
            expectTraceID(traced, "h-1")
            let home = try await api.send(.get, "/")
            #expect(home.status == .ok)
            #expect(home.text.contains("/openapi.yaml"))
        }
    }

    @Test("/metrics is Prometheus text counting requests by route pattern, never by user id")
    func metrics() async throws {
        // Over a socket: without UMFA_METRICS_TOKEN, /metrics answers loopback callers only.
        try await TestServer.with(.live) { api in
            for _ in 0..<3 { _ = try await api.send(.get, "/health") }
            let app = try await api.createApplication()
            _ = try await api.send(
                .get, APIOperation.listUserCredentials.path(["user_id": "secret-user"]) + "?application_id=\(app.id)",
                bearer: app.apiKey)
            _ = try await api.send(.get, "/no/such/path")

            let reply = try await api.send(.get, "/metrics")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let lines = reply.text.split(separator: "\n").map(String.init)
            #expect(lines.contains("# TYPE umfa_http_requests_total counter"))
            func count(route: String, status: Int) -> Int? {
                lines.first {
                    $0.hasPrefix("umfa_http_requests_total{") && $0.contains("route=\"\(route)\"")
                        && $0.contains("status=\"\(status)\"")
                }.flatMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            }
            #expect(count(route: "/health", status: 200) == 3)
            #expect(count(route: APIOperation.createApplication.path, status: 201) == 1)
            #expect(count(route: APIOperation.listUserCredentials.path, status: 404) == 1)
            let notFound = lines.filter { $0.hasPrefix("umfa_http_requests_total{") && $0.contains("status=\"404\"") }
            #expect(notFound.count == 2, "an unmatched request is counted under one fixed label")
            #expect(!reply.text.contains("secret-user"))
            #expect(!reply.text.contains("/no/such/path"))
            #expect(reply.text.contains("umfa_http_request_duration_seconds_bucket"))
        }
    }
}
