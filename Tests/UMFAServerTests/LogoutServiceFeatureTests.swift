import Foundation
import Testing
import UMFAEncoding
import UMFAStorage
import UMFATokens

@testable import UMFAServer

/// ``LogoutService`` built from its ports alone (a SQLite file, the token keys, the sign-in
/// check): the decisions of OpenID Connect RP-Initiated Logout 1.0 §2 and §3 without HTTP. A
/// session ends only for a hint of that session or the person's confirmation with its CSRF
/// token. No server.
@Suite("Logout decisions from their ports: invalid, confirm, unconfirmed, signed out")
struct LogoutServiceFeatureTests {
    static let bye = "https://app.example.com/bye"

    /// The claims of an ID token hint (OpenID Connect Core §2).
    struct HintClaims: Encodable {
        let iss: String
        let aud: String
        let sub: String
        let sid: String
        let iat: Int
        let exp: Int
    }

    /// A browser signed in to the issuer: its `Cookie` header and the session's sign-in.
    struct Browser {
        let cookie: String
        let handle: String
        let signIn: SignIn
    }

    static func logout(_ ports: FeaturePorts) -> LogoutService {
        LogoutService(
            store: ports.store, tokens: ports.tokens, signIns: ports.signIns, serverSecret: ports.serverSecret,
            now: ports.now)
    }

    static func sessions(_ ports: FeaturePorts) -> SSOSessions {
        SSOSessions(
            grants: OAuthGrants(store: ports.store, now: ports.now, issuer: ports.issuer), signIns: ports.signIns)
    }

    static func signedInBrowser(_ ports: FeaturePorts) async throws -> Browser {
        let passkey = try await ports.addPasskey(for: "alice")
        let signIn = ports.signIn("alice", passkey: passkey)
        let setCookie = try await sessions(ports).start(signIn)
        let pair = String(setCookie.prefix { $0 != ";" })
        return Browser(cookie: pair, handle: String(pair.dropFirst(SSOSessions.cookieName.count + 1)), signIn: signIn)
    }

    /// An ID token this issuer signed for `client` and `signIn`'s session, expiring in `lifetime`.
    static func hint(
        for client: OAuthClientRecord, _ signIn: SignIn, _ ports: FeaturePorts, lifetime: Int = 600
    ) async throws -> String {
        let now = Int(ports.clock.now.timeIntervalSince1970)
        return try await ports.tokens.sign(
            HintClaims(
                iss: ports.issuer.issuer, aud: client.clientID, sub: signIn.userID, sid: signIn.sessionID, iat: now,
                exp: now + lifetime),
            type: JWTType.idToken)
    }

    static func form(_ parameters: [String: String]) throws -> OAuthForm {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return try OAuthForm(
            encoded: parameters.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
                .joined(separator: "&"))
    }

    static func isLive(_ browser: Browser, _ ports: FeaturePorts) async throws -> Bool {
        try await sessions(ports).current(cookieHeader: browser.cookie) != nil
    }

    @Test("a client_id that is not the hint's audience is invalid, and the session stays")
    func clientDiffersFromHint() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let client = try await ports.addClient { $0.postLogoutRedirectURIs = [Self.bye] }
            let other = try await ports.addClient { _ in }
            let browser = try await Self.signedInBrowser(ports)
            let hint = try await Self.hint(for: client.record, browser.signIn, ports)
            let outcome = try await Self.logout(ports).decide(
                Self.form(["id_token_hint": hint, "client_id": other.record.clientID]), confirmed: false,
                issuer: ports.issuer, cookieHeader: browser.cookie)
            #expect(outcome == .invalid("client_id differs from the audience of the id_token_hint."))
            #expect(try await Self.isLive(browser, ports))
        }
    }

    @Test("without a hint the person is asked first, with the session's CSRF token; nothing ends yet")
    func confirmWithoutHint() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let client = try await ports.addClient { $0.postLogoutRedirectURIs = [Self.bye] }
            let browser = try await Self.signedInBrowser(ports)
            let logout = Self.logout(ports)
            let outcome = try await logout.decide(
                Self.form(["client_id": client.record.clientID, "post_logout_redirect_uri": Self.bye, "state": "s1"]),
                confirmed: false, issuer: ports.issuer, cookieHeader: browser.cookie)
            #expect(
                outcome
                    == .confirm(
                        csrfToken: logout.csrfToken(browser.handle), clientID: client.record.clientID,
                        postLogoutRedirectURI: Self.bye, state: "s1"))
            #expect(try await Self.isLive(browser, ports))
            // A hint of another session of the same user does not vouch for this one either.
            var elsewhere = browser.signIn
            elsewhere.sessionID = "sid-of-another-browser"
            let foreign = try await Self.hint(for: client.record, elsewhere, ports)
            let asked = try await logout.decide(
                Self.form(["id_token_hint": foreign]), confirmed: false, issuer: ports.issuer,
                cookieHeader: browser.cookie)
            #expect(
                asked
                    == .confirm(
                        csrfToken: logout.csrfToken(browser.handle), clientID: client.record.clientID,
                        postLogoutRedirectURI: nil, state: nil))
        }
    }

    @Test("a confirmation without the session's CSRF token, or with another session's, is unconfirmed")
    func unconfirmed() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let browser = try await Self.signedInBrowser(ports)
            let other = try await Self.signedInBrowser(ports)
            let logout = Self.logout(ports)
            for parameters in [[:], [LogoutService.csrfField: logout.csrfToken(other.handle)]] {
                let outcome = try await logout.decide(
                    Self.form(parameters), confirmed: true, issuer: ports.issuer, cookieHeader: browser.cookie)
                #expect(outcome == .unconfirmed)
            }
            #expect(try await Self.isLive(browser, ports))
        }
    }

    @Test("the confirmation with its CSRF token signs out and returns to the registered URI with state")
    func confirmedSignsOut() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let client = try await ports.addClient { $0.postLogoutRedirectURIs = [Self.bye] }
            let browser = try await Self.signedInBrowser(ports)
            let logout = Self.logout(ports)
            let outcome = try await logout.decide(
                Self.form([
                    LogoutService.csrfField: logout.csrfToken(browser.handle), "client_id": client.record.clientID,
                    "post_logout_redirect_uri": Self.bye, "state": "s 2",
                ]), confirmed: true, issuer: ports.issuer, cookieHeader: browser.cookie)
            guard case .signedOut(let redirect, let clearCookie) = outcome else {
                Issue.record("expected signedOut, got \(outcome)")
                return
            }
            #expect(redirect == Self.bye + "?state=s%202")
            #expect(clearCookie.hasPrefix("umfa_sso=;") && clearCookie.contains("Max-Age=0"))
            #expect(try await !Self.isLive(browser, ports))
            // A URI the client did not register is refused outright.
            let unregistered = try await logout.decide(
                Self.form(["client_id": client.record.clientID, "post_logout_redirect_uri": "https://evil.example/"]),
                confirmed: false, issuer: ports.issuer, cookieHeader: nil)
            #expect(unregistered == .invalid("The post_logout_redirect_uri is not one the application registered."))
        }
    }

    @Test("a self-registered client's URI is followed only for an unexpired hint of this session")
    func selfRegisteredNeedsLiveHint() async throws {
        try await FeaturePorts.with(signing: true) { ports in
            let client = try await ports.addClient {
                $0.postLogoutRedirectURIs = [Self.bye]
                $0.registrationTokenHash = Secrets.hash("umfa_rat_test")
            }
            let logout = Self.logout(ports)
            let browser = try await Self.signedInBrowser(ports)
            let live = try await Self.hint(for: client.record, browser.signIn, ports)
            let followed = try await logout.decide(
                Self.form(["id_token_hint": live, "post_logout_redirect_uri": Self.bye]), confirmed: false,
                issuer: ports.issuer, cookieHeader: browser.cookie)
            #expect(followed.redirect == Self.bye)

            let again = try await Self.signedInBrowser(ports)
            let expiring = try await Self.hint(for: client.record, again.signIn, ports, lifetime: 60)
            ports.clock.advance(by: 61)
            let notFollowed = try await logout.decide(
                Self.form(["id_token_hint": expiring, "post_logout_redirect_uri": Self.bye]), confirmed: false,
                issuer: ports.issuer, cookieHeader: again.cookie)
            // The expired hint still names the session, which ends, but vouches for no redirect.
            #expect(notFollowed.isSignedOut && notFollowed.redirect == nil)
            #expect(try await !Self.isLive(again, ports))
        }
    }
}

extension LogoutService.Outcome {
    /// Whether the session ended.
    fileprivate var isSignedOut: Bool {
        if case .signedOut = self { return true }
        return false
    }

    /// Where a sign-out sends the browser.
    fileprivate var redirect: String? {
        if case .signedOut(let redirect, _) = self { return redirect }
        return nil
    }
}
