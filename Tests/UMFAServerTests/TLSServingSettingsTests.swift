import Foundation
import Testing

@testable import UMFAServer

/// The TLS settings of `umfa serve` (certificate, key, reload interval, the mutual-TLS alias of
/// RFC 8705 §5) and which paths the alias listener serves. The listeners themselves are tested
/// end to end with openssl, curl and requests in Tests/Interop/test_tls_*.py.
@Suite("TLS serving: settings and the mutual-TLS alias paths")
struct TLSServingSettingsTests {
    private func configuration(_ environment: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        try configuration.apply(SettingsReader(environment: environment))
        return configuration
    }

    private func refusal(_ environment: [String: String]) -> String? {
        do {
            _ = try configuration(environment)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("plain HTTP unless both files are given; then the defaults")
    func defaults() throws {
        #expect(try configuration([:]).tls == nil)
        let tls = try #require(
            try configuration(["UMFA_TLS_CERTIFICATE": "/c.pem", "UMFA_TLS_KEY": "/k.pem"]).tls)
        #expect(tls.certificatePath == "/c.pem" && tls.keyPath == "/k.pem")
        #expect(tls.reloadPollInterval == .seconds(2))
        #expect(tls.mutualTLSPort == nil && tls.aliasBaseURL(publicURL: "https://a.example") == nil)
    }

    @Test("the reload interval and the alias listener")
    func alias() throws {
        let tls = try #require(
            try configuration([
                "UMFA_TLS_CERTIFICATE": "/c.pem", "UMFA_TLS_KEY": "/k.pem", "UMFA_TLS_RELOAD_SECONDS": "0",
                "UMFA_MTLS_PORT": "9443",
            ]).tls)
        #expect(tls.reloadPollInterval == nil)
        #expect(tls.mutualTLSPort == 9443)
        // The public URL's host and path, the alias port, always https.
        #expect(tls.aliasBaseURL(publicURL: "https://login.example/umfa") == "https://login.example:9443/umfa")
        #expect(tls.aliasBaseURL(publicURL: "http://login.example:8080") == "https://login.example:9443")
        let named = try #require(
            try configuration([
                "UMFA_TLS_CERTIFICATE": "/c.pem", "UMFA_TLS_KEY": "/k.pem", "UMFA_MTLS_PORT": "9443",
                "UMFA_MTLS_BASE_URL": "https://mtls.example/",
            ]).tls)
        #expect(named.aliasBaseURL(publicURL: "https://login.example") == "https://mtls.example")
    }

    @Test("incomplete or contradictory TLS settings stop the start, naming them")
    func refusals() {
        let both = ["UMFA_TLS_CERTIFICATE": "/c.pem", "UMFA_TLS_KEY": "/k.pem"]
        #expect(refusal(["UMFA_TLS_CERTIFICATE": "/c.pem"])?.contains("go together") == true)
        #expect(refusal(["UMFA_TLS_KEY": "/k.pem"])?.contains("go together") == true)
        #expect(refusal(["UMFA_MTLS_PORT": "9443"])?.contains("need TLS") == true)
        #expect(refusal(["UMFA_TLS_RELOAD_SECONDS": "5"])?.contains("need TLS") == true)
        #expect(refusal(both.merging(["UMFA_MTLS_PORT": "8080"]) { $1 })?.contains("must differ") == true)
        #expect(refusal(both.merging(["UMFA_MTLS_PORT": "0"]) { $1 })?.contains("UMFA_MTLS_PORT") == true)
        #expect(
            refusal(both.merging(["UMFA_MTLS_PORT": "9443", "UMFA_MTLS_BASE_URL": "http://mtls.example"]) { $1 })?
                .contains("https") == true)
        #expect(
            refusal(both.merging(["UMFA_MTLS_BASE_URL": "https://mtls.example"]) { $1 })?.contains(
                "needs UMFA_MTLS_PORT")
                == true)
        #expect(refusal(both.merging(["UMFA_TLS_RELOAD_SECONDS": "soon"]) { $1 })?.contains("seconds") == true)
    }

    @Test("an https public URL (the default with TLS) makes the session cookies Secure")
    func secureCookies() {
        #expect(ConsoleCookie.setCookie(nil, publicURL: "https://localhost:8443").contains("; Secure"))
        #expect(!ConsoleCookie.setCookie(nil, publicURL: "http://localhost:8080").contains("Secure"))
    }

    @Test("the alias serves token, PAR, introspection, revocation, device authorization and UserInfo only")
    func aliasPaths() {
        for endpoint in ["token", "par", "introspect", "revoke", "userinfo", "device_authorization"] {
            #expect(MutualTLSAliasMiddleware.served("/oidc/0b9d/\(endpoint)"))
        }
        for path in [
            "/health", "/", "/oidc/0b9d/authorize", "/oidc/0b9d/.well-known/openid-configuration", "/oidc//token",
            "/oidc/0b9d/token/x", "/api/umfa/validate-token", "/oidc/0b9d/jwks", "oidc/0b9d/token",
            "/api/oidc/0b9d/token", "/oidc/0b9d/device", "/oidc/0b9d/device/decision",
        ] {
            #expect(!MutualTLSAliasMiddleware.served(path), "\(path)")
        }
    }
}
