import Foundation
import Hummingbird
import Testing
import UMFAContract

@Suite("Demo page")
struct DemoPageTests {
    /// Every `src="…"` and `href="…"` value of a page.
    static func references(in html: String) -> [String] {
        let pattern = /(?:src|href)="([^"]*)"/
        return html.matches(of: pattern).map { String($0.output.1) }
    }

    @Test("GET / is the demo page for the development application, under a strict CSP, nothing from elsewhere")
    func page() async throws {
        try await DemoServer.with { api, development in
            let page = try await api.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'self'"))
            #expect(policy.contains("script-src 'self'"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("unsafe"))
            #expect(page.text.contains("<meta name=\"umfa-development-application\" content=\"\(development.id)\">"))
            #expect(!page.text.contains("{{"), "every placeholder is filled in")
            let references = Self.references(in: page.text)
            #expect(references.contains("/demo/demo.js"))
            #expect(references.contains("/demo/demo.css"))
            #expect(references.contains("/openapi.yaml"))
            for reference in references where reference != "data:," {
                #expect(reference.hasPrefix("/") && !reference.hasPrefix("//"), "\(reference) is not this server's")
            }
            #expect(!page.text.contains("<script>"), "no inline script")
            #expect(!page.text.contains("style="), "no inline style")
        }
    }

    @Test("the stylesheet and the script are served with their types and an ETag, 304 when unchanged")
    func assets() async throws {
        try await TestServer.with { api in
            let script = try await api.send(.get, "/demo/demo.js")
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.text.contains(APIOperation.authenticationOptions.path))
            #expect(!script.text.contains("http://") && !script.text.contains("https://"), "no other host")
            // The WebAuthn JSON helpers the demo and the hosted pages share.
            for path in ["/demo/webauthn-json.js", APIOperation.hostedWebAuthnScript.path] {
                let helpers = try await api.send(.get, path)
                #expect(helpers.status == .ok && helpers.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(helpers.text.contains("parseCreationOptionsFromJSON"), "\(path)")
            }
            let etag = try #require(script.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.count > 10)

            var headers: HTTPFields = [:]
            headers[.ifNoneMatch] = etag
            let again = try await api.client.execute(uri: "/demo/demo.js", method: .get, headers: headers, body: nil)
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)

            let style = try await api.send(.get, "/demo/demo.css")
            #expect(style.status == .ok)
            #expect(style.headers[.contentType] == "text/css; charset=utf-8")
            #expect(style.headers[.eTag] != etag)
            #expect(style.headers[.contentSecurityPolicy] != nil)

            #expect(try await api.send(.get, "/demo/passwords.txt").status == .notFound)
            #expect(try await api.send(.get, "/demo/..%2FPackage.swift").status == .notFound)
        }
    }
}
