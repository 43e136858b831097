import Foundation
import HTTPTypes
import Hummingbird
import Testing
import UMFAContract
import UMFATestSupport

@testable import UMFAServer

/// HTML escaped by byte (docs/contract.md §4, "Text meets HTML, protocols and logs"): HTML escaping
/// bypassed by a combining mark. `"` followed by U+0301 is one Swift `Character` that is not `"`;
/// an escaper that walks `Character`s writes it out raw, and the browser, which reads bytes, ends
/// the attribute at the `"`. A `login_hint` then turned `<meta name="umfa-login-hint" content="…">`
/// into a meta refresh to the attacker's site, and the logout page's hidden `client_id` and `state`
/// fields took attributes of the attacker's choosing.
@Suite("Hosted pages escape by byte, so a combining mark cannot end an attribute")
struct HostedPageEscapingTests {
    /// The reviewer's `login_hint`: with the `"` written raw, the meta tag gains
    /// `http-equiv=refresh` and its content sends the browser to the attacker.
    static let attack = "0;url=https://attacker.example/\"\u{301} http-equiv=refresh x"

    /// The tag of `html` that starts with `prefix`, as bytes up to its closing `>`.
    static func tag(_ prefix: String, in html: String) throws -> [UInt8] {
        let bytes = Array(html.utf8)
        let marker = Array(prefix.utf8)
        guard
            let start = (0...(bytes.count - marker.count)).first(where: {
                bytes[$0..<($0 + marker.count)].elementsEqual(marker)
            }),
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ">"))
        else { throw TestFailure("no \(prefix) in the page: \(html.prefix(600))") }
        return Array(bytes[start...end])
    }

    /// How many `"` bytes a tag holds: two per quoted attribute, whatever `Character`s say.
    static func quotes(_ tag: [UInt8]) -> Int { tag.filter { $0 == UInt8(ascii: "\"") }.count }

    /// A browser's GET with every byte of the query percent-encoded but ASCII letters, digits
    /// and `-._~`, so the combining mark travels as the browser sends it (`%CC%81`).
    static func get(_ api: API, _ path: String, _ query: [(String, String)], cookie: String? = nil) async throws
        -> Reply
    {
        func encode(_ text: String) -> String {
            text.utf8.map { byte in
                let scalar = Unicode.Scalar(byte)
                return byte < 0x80
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "-._~".unicodeScalars.contains(scalar))
                    ? String(scalar) : String(format: "%%%02X", byte)
            }.joined()
        }
        let uri = path + "?" + query.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        let response = try await api.client.execute(uri: uri, method: .get, headers: headers, body: nil)
        return Reply(status: response.status, headers: response.headers, text: String(buffer: response.body), json: nil)
    }

    @Test("every special character followed by a combining mark is written as a character reference")
    func escapeEverySpecialBeforeACombiningMark() {
        let specials: [(String, String)] = [
            ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;"),
        ]
        for (special, reference) in specials {
            for mark in ["\u{301}", "\u{20DD}", "\u{FE0F}", "\u{200D}", "\u{301}\u{302}"] {
                let escaped = HostedPages.escape("a" + special + mark + "b")
                #expect(escaped == "a" + reference + mark + "b", "\(special.unicodeScalars.first?.value ?? 0)")
            }
            #expect(HostedPages.escape(special) == reference)
        }
    }

    @Test("the attack login_hint stays inside the meta tag's content attribute")
    func loginHintMetaKeepsOneContentAttribute() throws {
        let html = HostedPages.fill(HostedPages.pageTemplate, ["login_hint": Self.attack])
        let meta = try Self.tag("<meta name=\"umfa-login-hint\"", in: html)
        #expect(
            String(decoding: meta, as: UTF8.self)
                == "<meta name=\"umfa-login-hint\" content=\"0;url=https://attacker.example/&quot;\u{301} http-equiv=refresh x\">"
        )
    }

    @Test(
        "a genuine authorize link with the attack login_hint renders no meta refresh",
        arguments: [
            ServerTransport.router, .live,
        ])
    func authorizePageHasNoMetaRefresh(transport: ServerTransport) async throws {
        try await TestServer.with(transport) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app)
            let query = Authorization().query(client: client.id, scope: "openid", extra: ["login_hint": Self.attack])
            let page = try await Self.get(
                api, APIOperation.oauthAuthorize.path(["application_id": app.id]), query.sorted { $0.key < $1.key })
            #expect(page.status == .ok, "\(page.text.prefix(300))")
            let meta = try Self.tag("<meta name=\"umfa-login-hint\"", in: page.text)
            #expect(Self.quotes(meta) == 4, "\(String(decoding: meta, as: UTF8.self))")
            #expect(!page.text.contains("http-equiv"))
            #expect(!page.text.contains("attacker.example"))
        }
    }

    @Test(
        "a login_hint that is an identifier with HTML's special characters is shown, escaped",
        arguments: [
            ServerTransport.router, .live,
        ])
    func identifierHintIsEscaped(transport: ServerTransport) async throws {
        try await TestServer.with(transport) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app)
            let hint = "o'hara&<co>@example.com"
            let query = Authorization().query(client: client.id, scope: "openid", extra: ["login_hint": hint])
            let page = try await Self.get(
                api, APIOperation.oauthAuthorize.path(["application_id": app.id]), query.sorted { $0.key < $1.key })
            #expect(page.status == .ok)
            #expect(
                page.text.contains(
                    "<meta name=\"umfa-login-hint\" content=\"o&#39;hara&amp;&lt;co&gt;@example.com\">"))
        }
    }

    @Test("login_hint is kept only when it is an identifier: an email address or a user id of visible text")
    func loginHintIsAnIdentifier() {
        for kept in ["alice", "alice@example.com", "o'hara&<co>@example.com", "Jos\u{E9}", "Jose\u{301}", "\u{1F600}"] {
            #expect(LoginHint.identifier(kept) == kept)
        }
        for dropped in [
            Self.attack, "a\"\u{301}", "\u{301}a", "1\u{301}", "alice smith", "a\nb", "a\u{202E}b", "a\u{200B}b",
            "a\u{0}b", "ann@\u{301}example.com", "no-dot@example", String(repeating: "a", count: 257),
        ] {
            #expect(LoginHint.identifier(dropped) == nil, "\(dropped.unicodeScalars.map(\.value))")
        }
    }

    @Test(
        "the logout page keeps the attack client_id and state inside their hidden fields",
        arguments: [
            ServerTransport.router, .live,
        ])
    func logoutPageFieldsKeepOneValue(transport: ServerTransport) async throws {
        try await TestServer.with(transport) { api in
            let app = try await api.createApplication(policy: "grant")
            let client = try await api.codeClient(app, firstParty: true, scope: "openid email")
            let (_, cookie) = try await api.signUpThroughFlow(
                app, client: client, flow: Authorization(), email: "eve@example.com", device: Device.make(),
                scope: "openid email")
            let clientID = "x\"\u{301} type=submit formaction=https://attacker.example/ name=y"
            let state = "s\"\u{301} http-equiv=refresh content=0;url=https://attacker.example/ x"
            let page = try await Self.get(
                api, APIOperation.oauthLogout.path(["application_id": app.id]),
                [("client_id", clientID), ("state", state)], cookie: cookie)
            #expect(page.status == .ok, "\(page.text.prefix(300))")
            for (name, value) in [("client_id", clientID), ("state", state)] {
                let input = try Self.tag("<input type=\"hidden\" name=\"\(name)\"", in: page.text)
                #expect(Self.quotes(input) == 6, "\(String(decoding: input, as: UTF8.self))")
                // The page's own reading of the field (the first `"` after `value="`) is the whole value.
                #expect(try LogoutConfirmationTests.hidden(name, in: page) == HostedPages.escape(value))
                #expect(HostedPages.escape(value).contains("&quot;\u{301} "))
            }
        }
    }
}
