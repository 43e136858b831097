import Foundation
import Synchronization
import Testing
import UMFAAttestationTestSupport
import UMFAContract
import UMFAEncoding
import UMFATestSupport

@testable import UMFA

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Curity's HAAPI iOS documentation, its own call sequences, in UMFA's names where they differ
/// (docs/sdk-products.md, Curity): the `HaapiResult` and step `switch`, `submitForm` and
/// `followLink`, a new `OAuthTokenManager` redeeming the code with `fetchAccessToken(with:)` and
/// `fetchAccessToken(with:dpop:)`, refresh and `revokeRefreshToken`, and `HaapiError`'s cases,
/// against a live server.
@Suite("Curity HAAPI: the documented patterns")
struct CurityCompatibilityTests {
    /// The documentation's `handleHaapiRepresentation`, its cases in its order; the name of the
    /// case that matched.
    static func handleHaapiRepresentation(_ haapiRepresentation: any HaapiRepresentation) -> String {
        switch haapiRepresentation {
        case let redirectionStep as RedirectionStep: return "\(type(of: redirectionStep))"
        case let authenticatorSelectorStep as AuthenticatorSelectorStep: return "\(type(of: authenticatorSelectorStep))"
        case let interactiveFormStep as InteractiveFormStep: return "\(type(of: interactiveFormStep))"
        case let pollingStep as PollingStep: return "\(type(of: pollingStep))"
        case let continueSameStep as ContinueSameStep: return "\(type(of: continueSameStep))"
        case let userConsentStep as UserConsentStep: return "\(type(of: userConsentStep))"
        case let genericRepresentationStep as GenericRepresentationStep:
            return "\(type(of: genericRepresentationStep))"
        case let clientOperationStep as ClientOperationStep: return "ClientOperationStep \(clientOperationStep.type)"
        case let oAuthAuthorizationResponseStep as OAuthAuthorizationResponseStep:
            return "\(type(of: oAuthAuthorizationResponseStep))"
        default: return "other"
        }
    }

    /// The documentation's `handleHaapiResult`: the representation, or why there is none.
    static func handleHaapiResult(_ haapiResult: HaapiResult) throws -> any HaapiRepresentation {
        switch haapiResult {
        case .representation(let haapiRepresentation): return haapiRepresentation
        case .problem(let problemRepresentation): throw TestFailure("a problem: \(problemRepresentation.title)")
        case .error(let anError): throw TestFailure("an error: \(anError)")
        }
    }

    /// The documentation's `handleError`: every case of `HaapiError`, no `default`.
    static func handleError(_ error: any Error) -> String {
        guard let haapiError = error as? HaapiError else { return "not a HaapiError" }
        switch haapiError {
        case .assertionFailure: return "assertionFailure"
        case .attestationFailure: return "attestationFailure"
        case .attestationKeyGenFailure: return "attestationKeyGenFailure"
        case .attestationNotSupported: return "attestationNotSupported"
        case .attestationRefusedByServer: return "attestationRefusedByServer"
        case .communication(let message, let cause): return "communication \(message.isEmpty) \(cause is ZSMError)"
        case .dpopKeyCreationFailure: return "dpopKeyCreationFailure"
        case .dpopProofCreationFailure: return "dpopProofCreationFailure"
        case .dpopProofFailure(let message, let cause):
            return "dpopProofFailure \(message.isEmpty) \(cause is ZSMError)"
        case .haapiTokenManagerAlreadyExists(let name): return "haapiTokenManagerAlreadyExists \(name)"
        case .haapiTokenManagerIsClosed: return "haapiTokenManagerIsClosed"
        case .haapiTokenManagerIsExpired: return "haapiTokenManagerIsExpired"
        case .illegalState: return "illegalState"
        case .invalidConfiguration: return "invalidConfiguration"
        case .invalidStatusCode(let statusCode): return "invalidStatusCode \(statusCode)"
        case .serverError(let error, _, let statusCode): return "serverError \(error) \(statusCode)"
        }
    }

    /// A sign-up by the documented sequence: `start`, the form step's `submitForm`, the client
    /// operation performed and its continue form submitted; the steps' names and the last step.
    static func signUp(_ fixture: FlowFixture, _ driver: FlowDriver, email: String) async throws -> (
        [String], OAuthAuthorizationResponseStep
    ) {
        let accounts = try fixture.accounts()
        var seen: [String] = []
        var step = try handleHaapiResult(await awaiting { driver.start(prompt: "create", completion: $0) })
        seen.append(handleHaapiRepresentation(step))
        let create = try #require((step as? InteractiveFormStep)?.formAction(kind: "create-account"))
        #expect(create.model.fields.first { $0.name == "email" } is TextFormField)
        #expect(create.model.fields.first { $0.name == "email" }?.isRequired == true)
        step = try handleHaapiResult(
            await awaiting { driver.submitForm(create.model, parameters: ["email": .string(email)], completion: $0) })
        seen.append(handleHaapiRepresentation(step))
        let operation = try #require(
            (step as? WebAuthnRegistrationClientOperationStep)?.actionModel
                as? WebAuthnRegistrationClientOperationActionModel)
        #expect(operation.publicKey?.objectValue?["challenge"]?.stringValue != nil)
        let credential = try await accounts.perform(operation.operation, label: email)
        let next = try #require(operation.continueFormAction)
        #expect(next.model.fields.first is HiddenFormField)
        step = try handleHaapiResult(await driver.submitForm(next.model, parameters: ["credential": credential]))
        seen.append(handleHaapiRepresentation(step))
        return (seen, try #require(step as? OAuthAuthorizationResponseStep))
    }

    @Test(
        "the documented switch: a form step, a client operation, the authorization response; a new manager redeems the code"
    )
    func documentedFlow() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let driver = try fixture.accounts().driver
            let email = "ida.\(UUID().uuidString.prefix(8))@example.com"
            let (seen, authResponseStep) = try await Self.signUp(fixture, driver, email: email)
            #expect(
                seen == [
                    "InteractiveFormStep", "ClientOperationStep registrationStep", "OAuthAuthorizationResponseStep",
                ])
            #expect(authResponseStep.step.isAuthorizationResponse)

            // "let code = authResponseStep.oauthAuthorizationResponseProperties.code!" and a new
            // manager of the same device (its persisted DPoP key and the flow's request).
            let code = try #require(authResponseStep.oauthAuthorizationResponseProperties.code)
            let oauthTokenManager = try OAuthTokenManager(configuration: fixture.oauth, device: fixture.device)
            let tokenResponse = await awaiting { oauthTokenManager.fetchAccessToken(with: code, completion: $0) }
            guard case .successfulToken(let successfulToken) = tokenResponse else {
                throw TestFailure("the code was not redeemed: \(tokenResponse)")
            }
            #expect(successfulToken.refreshToken != nil && successfulToken.tokenType == "DPoP")
            #expect(
                try jwtClaims(successfulToken.accessToken)["cnf"]?.objectValue?["jkt"]?.stringValue
                    == driver.dpop?.thumbprint)
            // Redeemed once: the same code again has no request left.
            guard case .error(let again) = await oauthTokenManager.fetchAccessToken(with: code) else {
                throw TestFailure("a code was redeemed twice")
            }
            #expect(again.code == .invalidConfiguration)

            // refreshAccessToken(with:), then revokeRefreshToken(with:) ends the family.
            let first = try #require(successfulToken.refreshToken)
            let refreshed = try await awaiting { oauthTokenManager.refreshAccessToken(with: first, completion: $0) }
                .get()
            let refreshToken = try #require(refreshed.refreshToken)
            guard
                case .successfulRevocation = await awaiting({
                    oauthTokenManager.revokeRefreshToken(with: refreshToken, completion: $0)
                })
            else { throw TestFailure("the refresh token was not revoked") }
            guard case .errorToken(let refusal) = await oauthTokenManager.refreshAccessToken(with: refreshToken) else {
                throw TestFailure("a revoked refresh token was accepted")
            }
            #expect(Self.handleError(refusal.haapiError) == "serverError invalid_grant 400")
        }
    }

    @Test(
        "fetchAccessToken(with:dpop:) with the flow's dpop: a manager with another key redeems the code bound to the flow's"
    )
    func dpopFromAnotherManager() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let haapiManager: HaapiManager = try fixture.accounts().driver
            let (_, authResponseStep) = try await Self.signUp(
                fixture, haapiManager, email: "eva.\(UUID().uuidString.prefix(8))@example.com")
            let code = try #require(authResponseStep.oauthAuthorizationResponseProperties.code)

            // A manager with its own key and no storage has no request for the code.
            let oauthTokenManager = try OAuthTokenManager(configuration: fixture.oauth)
            guard case .error(let none) = await oauthTokenManager.fetchAccessToken(with: code) else {
                throw TestFailure("a manager without the flow's request redeemed its code")
            }
            #expect(none.code == .invalidConfiguration)
            // An unbound configuration given a DPoP: Curity's invalidConfiguration.
            var unbound = fixture.oauth
            unbound.tokenBoundConfiguration = UnboundedTokenConfiguration()
            let dPoP = try #require(haapiManager.dpop)
            guard
                case .error(let misuse) = try await OAuthTokenManager(configuration: unbound)
                    .fetchAccessToken(with: code, dpop: dPoP)
            else { throw TestFailure("an unbound manager took a DPoP") }
            #expect(Self.handleError(misuse.haapiError) == "invalidConfiguration")

            // "let dPoP = haapiManager.dpop ... fetchAccessToken(with: code, dpop: dPoP)".
            let tokens = try await awaiting {
                oauthTokenManager.fetchAccessToken(with: code, dpop: dPoP, completion: $0)
            }
            .get()
            #expect(try jwtClaims(tokens.accessToken)["cnf"]?.objectValue?["jkt"]?.stringValue == dPoP.thumbprint)
            #expect(dPoP.thumbprint != oauthTokenManager.dpopThumbprint)

            // DpopAccessTokenInfo: the two headers a resource takes (the userinfo endpoint here).
            let info = DpopAccessTokenInfo(dpop: dPoP, accessToken: tokens.accessToken)
            let url = server.issuer(fixture.app).appendingPathComponent("userinfo")
            var request = URLRequest(url: url)
            request.setValue(info.authorizationHeaderValue, forHTTPHeaderField: "Authorization")
            request.setValue(try await info.dpopHeaderValue(method: "GET", url: url), forHTTPHeaderField: "DPoP")
            let (data, response) = try await fixture.oauth.transport.send(request)
            #expect(response.statusCode == 200)
            let claims = try JSONDecoder().decode([String: JSONValue].self, from: data)
            #expect(claims["sub"] != nil)
            // Without the proof the bound token is refused.
            request.setValue(nil, forHTTPHeaderField: "DPoP")
            #expect(try await fixture.oauth.transport.send(request).1.statusCode == 401)
        }
    }

    @Test(
        "the redirect path checks state and iss: a response with another state or issuer is refused, the right one redeemed"
    )
    func redirectState() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            fixture.oauth.tokenBoundConfiguration = UnboundedTokenConfiguration()
            let manager = try OAuthTokenManager(configuration: fixture.oauth)
            let url = try await manager.authorizationRequestURL(prompt: "create")
            let email = "ola.\(UUID().uuidString.prefix(8))@example.com"
            let redirect = try await TokenBindingTests.createAccount(
                server, at: url, email: email, device: try fixture.accounts())
            var components = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false))
            let items = components.queryItems ?? []
            let code = try #require(items.first { $0.name == "code" }?.value)
            #expect(items.first { $0.name == "state" }?.value == manager.pending.newestState)

            // The attack: the same code with another state (a response to someone else's request).
            func replacing(_ name: String, _ value: String) throws -> URL {
                components.queryItems = items.map { $0.name == name ? URLQueryItem(name: name, value: value) : $0 }
                return try #require(components.url)
            }
            for forged in [try replacing("state", "another-state"), try replacing("iss", "https://evil.example")] {
                guard case .error(let refused) = await manager.fetchAccessToken(redirectURL: forged) else {
                    throw TestFailure("a response that is not the request's was redeemed")
                }
                #expect(refused.code == .verificationFailed)
                #expect(Self.handleError(refused.haapiError) == "illegalState")
            }
            // The code alone: its response's state was never checked, so it is refused.
            guard case .error(let unchecked) = await manager.fetchAccessToken(with: code) else {
                throw TestFailure("a code whose state was not checked was redeemed")
            }
            #expect(unchecked.code == .invalidConfiguration)
            // The response as it came: redeemed.
            let tokens = try await manager.fetchAccessToken(redirectURL: redirect).get()
            #expect(tokens.tokenType == "Bearer")
        }
    }

    @Test("problems: InvalidInputProblem names the field; a denied consent is an AuthorizationProblem (access_denied)")
    func problems() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage, client: ["first_party": false])
            let accounts = try fixture.accounts()
            let driver = accounts.driver
            let start = try Self.handleHaapiResult(await driver.start(prompt: "create"))
            let create = try #require(start.formAction(kind: "create-account"))
            guard case .problem(let missing as InvalidInputProblem) = await driver.submitForm(create.model) else {
                throw TestFailure("a missing email was not invalid input")
            }
            #expect(missing.type == .invalidInputProblem && missing.httpStatus == 400)
            #expect(missing.invalidFields.map(\.name) == ["email"])
            #expect(missing.recovery == .retry && !missing.messages.isEmpty)

            // The same flow goes on to consent, which the person denies.
            let email = "uri.\(UUID().uuidString.prefix(8))@example.com"
            var step = try Self.handleHaapiResult(
                await driver.submitForm(create.model, parameters: ["email": .string(email)]))
            let operation = try #require((step as? any ClientOperationStep)?.actionModel)
            let credential = try await accounts.perform(operation.operation, label: email)
            step = try Self.handleHaapiResult(
                await driver.submitForm(
                    try #require(operation.continueFormAction).model, parameters: ["credential": credential]))
            #expect(Self.handleHaapiRepresentation(step) == "UserConsentStep")
            let consent = try #require(step as? UserConsentStep)
            #expect(consent.clientName == "Flow app" && consent.scopes.contains("openid"))
            guard
                case .problem(let denied as AuthorizationProblem) = await driver.submitForm(
                    try #require(consent.denyAction).model)
            else { throw TestFailure("a denied consent was not an authorization problem") }
            #expect(denied.type == .errorAuthorizationResponseProblem && denied.error == "access_denied")
        }
    }

    @Test("polling: approve on another device is a PollingStep with a QR code, a poll and a cancel that goes back")
    func polling() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let driver = try fixture.accounts().driver
            let start = try Self.handleHaapiResult(await driver.start())
            let ask = try #require(start.formAction(kind: "approve-on-another-device"))
            #expect(ask.model.fields.first is UsernameFormField)
            let step = try Self.handleHaapiResult(
                await driver.submitForm(ask.model, parameters: ["username": "someone@example.com"]))
            let polling = try #require(step as? PollingStep)
            #expect(polling.properties.status == .pending && polling.properties.interval == 2)
            #expect(polling.properties.qrCode?.objectValue?["dataUri"] != nil)
            #expect(polling.properties.appLinkUri != nil && polling.properties.matchingNumber != nil)
            let poll = try #require(polling.mainAction)
            #expect(poll.kind == "poll")
            guard case .representation(let again as PollingStep) = await driver.submitForm(poll.model) else {
                throw TestFailure("a poll was not a polling step")
            }
            #expect(again.properties.status == .pending)
            let cancelled = try Self.handleHaapiResult(
                await driver.submitForm(try #require(polling.cancelAction).model))
            #expect(cancelled is InteractiveFormStep && cancelled.metadata?.viewName == "umfa:choose")
            // followLink(_:) with the step's restart link: the start again.
            let restart = try #require(cancelled.links.first { $0.rel == "restart" })
            let restarted = try Self.handleHaapiResult(await awaiting { driver.followLink(restart, completion: $0) })
            #expect(restarted is InteractiveFormStep)
        }
    }

    @Test("HaapiError: an expired flow token, a DPoP key that cannot sign, a server that is gone, an unexpected status")
    func haapiErrors() async throws {
        let gone = try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            let driver = try fixture.accounts().driver
            let start = try Self.handleHaapiResult(await driver.start())
            let signIn = try #require(start.formAction(kind: "passkey-sign-in"))

            // A flow token the server does not know (as an expired one is not known any more).
            driver.state.withLock { $0.flowToken = "a-flow-token-the-server-never-issued" }
            guard case .error(let expired) = await driver.submitForm(signIn.model) else {
                throw TestFailure("a revoked flow token was accepted")
            }
            #expect(Self.handleError(expired) == "haapiTokenManagerIsExpired")
            #expect((expired as? HaapiError)?.recovery == .startOver)

            // A status the flow does not expect.
            let restart = Link(href: server.issuer(fixture.app).absoluteString + "/no-such-route", rel: "restart")
            guard case .error(let status) = await driver.followLink(restart) else {
                throw TestFailure("an unknown route answered a step")
            }
            #expect(Self.handleError(status) == "invalidStatusCode 404")

            // A DPoP key that cannot sign.
            fixture.oauth.tokenBoundConfiguration = BoundedTokenConfiguration(keyProvider: BrokenDPoPKey())
            guard
                case .error(let proof) = await FlowDriver(tokens: try OAuthTokenManager(configuration: fixture.oauth))
                    .start()
            else { throw TestFailure("a key that cannot sign started a flow") }
            #expect(Self.handleError(proof) == "dpopProofFailure false true")
            let manager = try OAuthTokenManager(configuration: try await FlowFixture.make(server, storage).oauth)
            _ = try await manager.metadata()
            return manager
        }
        guard case .error(let unreachable) = await gone.refreshAccessToken(with: "a-refresh-token") else {
            throw TestFailure("a server that is gone answered")
        }
        #expect(Self.handleError(unreachable.haapiError) == "communication false true")
    }
}

extension CurityCompatibilityTests {
    @Test("a manager built anywhere with the app's DPoPKeyProvider and the device's storage redeems the flow's code")
    func keyProviderManager() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            let provider = Ed25519DPoPKey()
            fixture.oauth.tokenBoundConfiguration = BoundedTokenConfiguration(keyProvider: provider)
            let driver = FlowDriver(tokens: try OAuthTokenManager(configuration: fixture.oauth, device: fixture.device))
            let (_, authResponseStep) = try await Self.signUp(
                fixture, driver, email: "pia.\(UUID().uuidString.prefix(8))@example.com")
            let code = try #require(authResponseStep.oauthAuthorizationResponseProperties.code)
            let elsewhere = try OAuthTokenManager(configuration: fixture.oauth, device: fixture.device)
            let tokens = try await elsewhere.fetchAccessToken(with: code).get()
            #expect(try jwtClaims(tokens.accessToken)["cnf"]?.objectValue?["jkt"]?.stringValue == provider.thumbprint)
        }
    }

    @Test("HaapiError's attestation cases: a device that cannot attest, an attestation the server refuses")
    func attestationErrors() async throws {
        let ca = try AttestationTestCA()
        try await LiveServer.with(ownPublicURL: true, attestationAnchors: ca.anchors) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            // A client that must attest itself, and no DCR template to fall back to.
            var fixture = try await DCRFallbackTests.fixture(server, storage, template: false)
            fixture.oauth.clientAuthentication =
                DCRFallbackTests.Attester { _ in throw DCRFallbackTests.DeviceCannotAttest() }.authentication
            guard case .error(let cannot) = try await fixture.accounts().driver.start() else {
                throw TestFailure("a device that cannot attest started a flow")
            }
            #expect(Self.handleError(cannot) == "attestationFailure")
            #expect((cannot as? HaapiError)?.recovery == .giveUp)

            let untrusted = try AttestationTestCA()
            fixture.oauth.clientAuthentication =
                DCRFallbackTests.Attester { try untrusted.appAttest(appID: DCRFallbackTests.appID, challenge: $0) }
                .authentication
            guard case .error(let refused) = try await fixture.accounts().driver.start() else {
                throw TestFailure("an attestation of an untrusted CA started a flow")
            }
            #expect(Self.handleError(refused) == "attestationRefusedByServer")

            // The attestation the server trusts starts the flow.
            fixture.oauth.clientAuthentication =
                DCRFallbackTests.Attester { try ca.appAttest(appID: DCRFallbackTests.appID, challenge: $0) }
                .authentication
            let start = try Self.handleHaapiResult(await fixture.accounts().driver.start())
            #expect(start is InteractiveFormStep)
        }
    }
}

/// A DPoP key whose signing always fails (a Secure Enclave that is not available, say).
struct BrokenDPoPKey: DPoPKeyProvider {
    struct Unavailable: Error {}
    var algorithm: String { "ES256" }
    var publicJWK: [String: String] { DPoPKey().publicJWK }
    func sign(_ signingInput: [UInt8]) async throws -> [UInt8] { throw Unavailable() }
}

extension HaapiStep {
    var isAuthorizationResponse: Bool {
        if case .oauthAuthorizationResponse = self { return true }
        return false
    }
}
