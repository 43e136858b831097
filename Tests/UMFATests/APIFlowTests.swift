import Crypto
import Foundation
import Synchronization
import Testing
import UMFAContract
import UMFAEncoding
import UMFATestSupport
import UMFAWebAuthn

@testable import UMFA

/// The SDK's flow driver, token manager and passkey account client against a live server
/// running the API-driven flow (docs/contract.md §6).
@Suite("API-driven flow: the SDK")
struct APIFlowTests {
    @Test("sign up, log in by email and by a discoverable passkey, refresh and revoke")
    func journey() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let accounts = try fixture.accounts()
            let email = "ada.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await accounts.signUp(
                profile: AccountProfile(email: email, givenName: "Ada", familyName: "Lovelace"),
                friendlyName: "Ada's phone")
            let subject = try #require(signedUp.subject)
            #expect(signedUp.claims["email"]?.stringValue == email)
            #expect(signedUp.claims["given_name"]?.stringValue == "Ada")
            #expect(signedUp.tokens.tokenType == "DPoP")
            let access = try jwtClaims(signedUp.tokens.accessToken)
            #expect(access["cnf"]?.objectValue?["jkt"]?.stringValue == accounts.driver.tokens.dpopThumbprint)
            // The server knows the passkey under the new account's id, with its name.
            let credentials = try await server.credentials(fixture.app, user: subject)
            #expect(credentials.count == 1)
            #expect(credentials.first?.objectValue?["device_name"]?.stringValue == "Ada's phone")
            #expect(fixture.pad.prompts.count == 1)

            let byEmail = try await accounts.logIn(email: email)
            #expect(byEmail.subject == subject)
            let discoverable = try await accounts.logIn(email: nil)
            #expect(discoverable.subject == subject)
            #expect(fixture.pad.prompts.count == 3)

            // Refresh rotates; revoking the new refresh token ends the family.
            let manager = accounts.driver.tokens
            let refreshed = try await manager.refreshAccessToken(with: try #require(byEmail.tokens.refreshToken)).get()
            #expect(refreshed.refreshToken != byEmail.tokens.refreshToken)
            try await manager.revoke(try #require(refreshed.refreshToken))
            guard
                case .errorToken(let refusal) = await manager.refreshAccessToken(
                    with: try #require(refreshed.refreshToken))
            else { throw TestFailure("a revoked refresh token was accepted") }
            #expect(refusal.error == "invalid_grant" && refusal.statusCode == 400)
        }
    }

    @Test("a client that is not first-party asks for consent; allowed it ends in tokens, denied in access_denied")
    func consent() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage, client: ["first_party": false])
            let asked = SecretPad(nil)
            let allowing = try fixture.accounts { name, scopes in
                _ = await asked.provider(.enter(userId: "\(name ?? "") \(scopes.joined(separator: ","))"))
                return true
            }
            let email = "grace.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await allowing.signUp(profile: AccountProfile(email: email))
            #expect(signedUp.claims["email"]?.stringValue == email)
            #expect(asked.prompts == [.enter(userId: "Flow app openid,profile,email,offline_access")])

            // Another person, who refuses: the flow ends in the OAuth error, as a redirect would.
            let denying = try fixture.accounts { _, _ in false }
            let error = await #expect(throws: FlowError.self) {
                _ = try await denying.signUp(profile: AccountProfile(email: "other.\(email)"))
            }
            #expect(error?.problem?.type == .errorAuthorizationResponse)
            #expect(error?.problem?.error == "access_denied")
            #expect(error?.recovery == .giveUp)
        }
    }

    @Test("problems: a missing email is invalid input naming the field; a tampered assertion is incorrect credentials")
    func problems() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let fixture = try await FlowFixture.make(server, storage)
            let accounts = try fixture.accounts()
            let email = "lin.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await accounts.signUp(
                profile: AccountProfile(email: email), scopes: ["openid", "email", "urn:umfa:api-flow"])
            #expect(signedUp.tokens.scope?.contains("urn:umfa:api-flow") == true)

            let driver = accounts.driver
            var step = try await driver.beginStep(prompt: nil, loginHint: nil, scopes: nil)
            let create = try #require(step.action("create-account")?.form)
            let missing = await #expect(throws: FlowError.self) {
                _ = try await driver.sendForm(create, parameters: ["given_name": "Lin"])
            }
            #expect(missing?.problem?.type == .invalidInput)
            #expect(missing?.problem?.invalidFields == [.init(name: "email", reason: .missing)])
            #expect(missing?.recovery == .retry)
            let taken = await #expect(throws: FlowError.self) {
                _ = try await driver.sendForm(create, parameters: ["email": .string(email)])
            }
            #expect(taken?.problem?.invalidFields?.first?.name == "email")
            #expect(taken?.problem?.invalidFields?.first?.reason == .invalidValue)

            // The same flow goes on: a passkey sign-in whose signature was changed is refused.
            step = try await driver.sendForm(
                try #require(step.action("passkey-sign-in")?.form), parameters: ["username": .string(email)])
            let operation = try #require(step.actions.first?.clientOperation)
            guard case .object(var credential) = try await accounts.perform(operation, label: email),
                case .object(var response)? = credential["response"],
                let signature = response["signature"]?.stringValue.flatMap(Base64URL.decode)
            else { throw TestFailure("the assertion has no signature") }
            var changed = signature
            changed[changed.count - 1] ^= 0x01
            response["signature"] = .string(Base64URL.encode(changed))
            credential["response"] = .object(response)
            let wrong = await #expect(throws: FlowError.self) {
                _ = try await driver.sendForm(
                    try #require(operation.continueActions.first?.form), parameters: ["credential": .object(credential)]
                )
            }
            #expect(wrong?.problem?.type == .incorrectCredentials)
            #expect(wrong?.recovery == .retry)

            // A user's access token that carries the flow scope (same DPoP key) is no flow token.
            driver.state.withLock { $0.flowToken = signedUp.tokens.accessToken }
            let userToken = await #expect(throws: FlowError.self) {
                _ = try await driver.sendForm(create, parameters: ["email": "x@example.com"])
            }
            #expect(userToken?.httpStatus == 401 && userToken?.recovery == .startOver)
        }
    }

    @Test("a flow that expires while the user types the PIN is started again, and signs in")
    func restartsAfterSessionExpired() async throws {
        let clock = SharedClock()
        try await LiveServer.with(ownPublicURL: true, now: clock.now) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            let log = LogCapture()
            fixture.oauth.now = clock.now
            fixture.oauth.logger = log.logger()
            let email = "max.\(UUID().uuidString.prefix(8))@example.com"
            _ = try await fixture.accounts().signUp(profile: AccountProfile(email: email))

            // The first sign-in's PIN takes eleven minutes: the flow (ten) is gone by then.
            let slow = SecretPad(FlowFixture.pin)
            var device = fixture.device
            let typed = Mutex(0)
            device.userVerification = .pin { purpose in
                if typed.withLock({ count in
                    count += 1
                    return count == 1
                }) {
                    clock.advance(by: 11 * 60)
                }
                return await slow.provider(purpose)
            }
            let accounts = try PasskeyAccountClient(device: device, oauth: fixture.oauth)
            let signedIn = try await accounts.logIn(email: email)
            #expect(signedIn.claims["email"]?.stringValue == email)
            #expect(typed.withLock { $0 } == 2)
            #expect(log.text.contains("urn:umfa:problem:session-expired"))
            #expect(log.text.contains("the flow must start again"))
        }
    }

    @Test("a DPoP nonce demanded in the middle of a flow is sent, and the flow goes on")
    func nonceMidFlow() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            let log = LogCapture()
            let heard = StatusListener()
            fixture.oauth.logger = log.logger()
            fixture.oauth.tokenEndpointResponseListener = heard
            let accounts = try fixture.accounts()
            let driver = accounts.driver
            let email = "noor.\(UUID().uuidString.prefix(8))@example.com"
            var step = try await driver.beginStep(prompt: "create", loginHint: nil, scopes: nil)
            step = try await driver.sendForm(
                try #require(step.action("create-account")?.form), parameters: ["email": .string(email)])
            // The application starts requiring nonces now.
            try await server.patch(fixture.app, ["dpop_nonce": "required"])
            let operation = try #require(step.actions.first?.clientOperation)
            let credential = try await accounts.perform(operation, label: email)
            step = try await driver.sendForm(
                try #require(operation.continueActions.first?.form), parameters: ["credential": credential])
            #expect(step.type == .authorizationResponse)
            let (tokens, claims) = try await driver.finishStep(step)
            #expect(claims["email"]?.stringValue == email)
            #expect(tokens.tokenType == "DPoP")
            // The flow endpoint itself asked (401 use_dpop_nonce), not only the token endpoint.
            let flowURL = server.issuer(fixture.app).absoluteString + "/flow/[masked]/create-account/verify"
            #expect(log.text.contains("the server demands a DPoP nonce at POST \(flowURL)"), "\(log.text)")
            #expect(try jwtClaims(tokens.accessToken)["cnf"] != nil)
            // The listener heard the flow token and the code exchange.
            #expect(heard.statuses == [200, 200])
        }
    }

    @Test("a refused client falls back to the DCR template; the dynamic client is kept on the device")
    func dcrFallback() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let app = try await server.createApplication(policy: "open")
            let template = try await server.flowClient(
                app,
                [
                    "client_name": "SDK template", "dcr_template": true,
                    "token_endpoint_auth_method": "client_secret_basic",
                    "grant_types": .array(["authorization_code", "refresh_token", "client_credentials"]),
                ])
            var fixture = try await FlowFixture.make(server, storage, app: app)
            fixture.oauth.clientId = "a-client-the-server-never-issued"
            fixture.oauth.dcrTemplate = .init(
                clientId: try #require(template["client_id"]?.stringValue),
                authentication: .secret(try #require(template["client_secret"]?.stringValue)))
            let before = try await server.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: LiveServer.adminToken)
            let email = "omar.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await fixture.accounts().signUp(profile: AccountProfile(email: email))
            let clientID = try #require(signedUp.claims["aud"]?.stringValue)
            #expect(clientID != fixture.oauth.clientId && clientID != template["client_id"]?.stringValue)
            // A new client object for the same device uses the kept client: nothing new is registered.
            let again = try await fixture.accounts().logIn(email: email)
            #expect(again.claims["aud"]?.stringValue == clientID)
            let after = try await server.send(
                .get, APIOperation.listOAuthClients.path(["id": app.id]), bearer: LiveServer.adminToken)
            let count = { (reply: Reply) -> Int in
                guard case .array(let clients)? = reply["clients"] else { return -1 }
                return clients.count
            }
            #expect(count(after) == count(before) + 1)
            // The kept client's secret is sealed on the device, not written in the clear.
            let folder = storage.url.appendingPathComponent("oauth-clients")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(files.count == 1)
            let kept = try String(contentsOf: folder.appendingPathComponent(try #require(files.first)), encoding: .utf8)
            #expect(kept.contains(clientID) && !kept.contains("umfa_cs_"))
        }
    }

    @Test(
        "confidential clients authenticate with private_key_jwt and client_secret_jwt through the whole journey",
        arguments: ["private_key_jwt", "client_secret_jwt"])
    func clientAuthentication(method: String) async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let app = try await server.createApplication(policy: "open")
            let key = P256.Signing.PrivateKey()
            var extra: [String: JSONValue] = ["token_endpoint_auth_method": .string(method)]
            if method == "private_key_jwt" {
                let jwk = DeviceSigningKeys.publicJWK(key)
                extra["jwks"] = .object(["keys": .array([jwk])])
            }
            let client = try await server.flowClient(app, extra)
            var fixture = try await FlowFixture.make(server, storage, app: app)
            fixture.oauth.clientId = try #require(client["client_id"]?.stringValue)
            fixture.oauth.clientAuthentication =
                method == "private_key_jwt"
                ? .privateKeyJWT(key) : .symmetricJWT(secret: try #require(client["client_secret"]?.stringValue))
            let email = "kai.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await fixture.accounts().signUp(profile: AccountProfile(email: email))
            #expect(signedUp.claims["aud"]?.stringValue == fixture.oauth.clientId)
            #expect(signedUp.claims["email"]?.stringValue == email)

            // The wrong key or secret: the flow token is refused and the flow cannot start.
            fixture.oauth.clientAuthentication =
                method == "private_key_jwt" ? .privateKeyJWT(P256.Signing.PrivateKey()) : .symmetricJWT(secret: "wrong")
            guard
                case .errorToken(let refusal) = await OAuthTokenManager(
                    configuration: fixture.oauth, dpopKey: DPoPKey()
                ).flowToken()
            else { throw TestFailure("a wrong client credential got a flow token") }
            #expect(refusal.error == "invalid_client" && refusal.statusCode == 401)
            let error = await #expect(throws: FlowError.self) {
                _ = try await fixture.accounts().logIn(email: email)
            }
            #expect(error?.recovery == .giveUp)
        }
    }

    @Test("a trace-level log of a whole journey holds no token, code, PIN, proof or key")
    func logsMaskSecrets() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            var fixture = try await FlowFixture.make(server, storage)
            let log = LogCapture()
            fixture.oauth.logger = log.logger()
            let accounts = try fixture.accounts()
            let email = "zoe.\(UUID().uuidString.prefix(8))@example.com"
            // The journey step by step, so the test sees the flow's own secrets too.
            let driver = accounts.driver
            var step = try await driver.beginStep(prompt: "create", loginHint: nil, scopes: nil)
            step = try await driver.sendForm(
                try #require(step.action("create-account")?.form), parameters: ["email": .string(email)])
            let operation = try #require(step.actions.first?.clientOperation)
            step = try await driver.sendForm(
                try #require(operation.continueActions.first?.form),
                parameters: ["credential": try await accounts.perform(operation, label: email)])
            let flow = driver.state.withLock { $0 }
            let flowToken = try #require(flow.flowToken)
            let secrets = try #require(flow.secrets)
            let code = try #require(step.properties["code"]?.stringValue)
            let (tokens, _) = try await driver.finishStep(step)
            let refreshed = try await driver.tokens.refreshAccessToken(with: try #require(tokens.refreshToken)).get()
            let text = log.text
            #expect(text.contains("→ POST") && text.contains("→ GET") && text.contains("[masked]"))
            var secretValues = [
                FlowFixture.pin, flowToken, code, secrets.verifier, secrets.state, secrets.nonce, secrets.challenge,
                tokens.accessToken, try #require(tokens.refreshToken), try #require(tokens.idToken),
                refreshed.accessToken, try #require(refreshed.refreshToken), email,
            ]
            // The signed parts of each JWT (a header alone is not secret; its payload and signature are).
            for token in [flowToken, tokens.accessToken, refreshed.accessToken] {
                secretValues += token.split(separator: ".").dropFirst().map(String.init)
            }
            for secret in secretValues { #expect(!text.contains(secret), "the log holds a secret") }
            // Every query value and every flow id is masked.
            #expect(text.range(of: #"[?&][a-z_]+=(?!\[masked\])"#, options: .regularExpression) == nil)
            #expect(text.range(of: #"/flow/(?!\[masked\])"#, options: .regularExpression) == nil)
        }
    }

    @Test("the completion-handler forms sign up and log in")
    func completions() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let storage = DeviceStorage()
            defer { storage.remove() }
            let accounts = try await FlowFixture.make(server, storage).accounts()
            let email = "eve.\(UUID().uuidString.prefix(8))@example.com"
            let signedUp = try await withCheckedThrowingContinuation { continuation in
                accounts.signUp(profile: AccountProfile(email: email)) { continuation.resume(with: $0) }
            }
            let loggedIn = try await withCheckedThrowingContinuation { continuation in
                accounts.logIn(email: email) { continuation.resume(with: $0) }
            }
            #expect(signedUp.subject != nil && signedUp.subject == loggedIn.subject)
        }
    }
}

@Suite("API-driven flow: approval on another device")
struct APIFlowApprovalTests {
    /// A phone that signed up through the flow (its passkey known as the account's), and a kiosk
    /// without a passkey whose flow driver asks for approvals.
    struct Devices {
        let phone: FlowFixture
        let email: String
        let subject: String
        let kiosk: FlowDriver
        let kioskDevice: ZSMConfig

        static func make(_ server: LiveServer, phone phoneStorage: DeviceStorage, kiosk kioskStorage: DeviceStorage)
            async throws -> Devices
        {
            let phone = try await FlowFixture.make(server, phoneStorage)
            let email = "ida.\(UUID().uuidString.prefix(8))@example.com"
            let account = try await phone.accounts().signUp(profile: AccountProfile(email: email))
            var kioskDevice = phone.device
            kioskDevice.storageLocation = kioskStorage.url
            return Devices(
                phone: phone, email: email, subject: try #require(account.subject),
                kiosk: try PasskeyAccountClient(device: kioskDevice, oauth: phone.oauth).driver,
                kioskDevice: kioskDevice)
        }

        /// The phone's client answering `step`'s app link, with `number` (the step's by default).
        func answering(_ step: FlowStep, decision: OutOfBandRelyingParty.Decision = .approve, number: String? = nil)
            throws -> UMFAClient
        {
            let link = try UMFAAppLink(uri: try #require(step.properties["appLinkUri"]?.stringValue))
            return UMFAClient(
                phone.device,
                relyingParty: OutOfBandRelyingParty(
                    link: link, config: phone.device, decision: decision,
                    matchingNumber: number ?? step.properties["matchingNumber"]?.stringValue))
        }
    }

    @Test("a polling step carries the QR code and app link; the phone approves; the flow ends in tokens for its user")
    func approval() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let phoneStorage = DeviceStorage()
            let kioskStorage = DeviceStorage()
            let strangerStorage = DeviceStorage()
            defer {
                phoneStorage.remove()
                kioskStorage.remove()
                strangerStorage.remove()
            }
            // The phone signed up through the flow; the device knows its passkey as the account's.
            let devices = try await Devices.make(server, phone: phoneStorage, kiosk: kioskStorage)
            let (email, subject) = (devices.email, devices.subject)
            #expect(try await UMFAClient(devices.phone.device).checkEnrollment(userId: subject).enrolled)

            // A device without a passkey (a kiosk, a TV) asks for an approval.
            let driver = devices.kiosk
            let ask = try #require(
                try await driver.beginStep(prompt: nil, loginHint: nil, scopes: nil).action(
                    "approve-on-another-device")?.form)
            var step = try await driver.sendForm(ask, parameters: ["username": .string(email)])
            #expect(step.type == .polling && step.pollingStatus == "pending")
            #expect(
                step.properties["qrCode"]?.objectValue?["dataUri"]?.stringValue?.hasPrefix("data:image/png") == true)
            let poll = try #require(step.action("poll")?.form)
            #expect(try await driver.sendForm(poll, parameters: [:]).pollingStatus == "pending")

            // Another account's device cannot answer it: the approval names this user. (Its
            // attempt spends the link, as any redemption does; the kiosk asks again.)
            var strangerDevice = devices.phone.device
            strangerDevice.storageLocation = strangerStorage.url
            let stranger = try await PasskeyAccountClient(device: strangerDevice, oauth: devices.phone.oauth)
                .signUp(profile: AccountProfile(email: "mallory.\(email)"))
            let intruding = UMFAClient(
                strangerDevice,
                relyingParty: OutOfBandRelyingParty(
                    link: try UMFAAppLink(uri: try #require(step.properties["appLinkUri"]?.stringValue)),
                    config: strangerDevice, matchingNumber: step.properties["matchingNumber"]?.stringValue))
            await #expect(throws: ZSMError.self) {
                _ = try await intruding.answerApproval(userId: try #require(stranger.subject))
            }
            #expect(try await driver.sendForm(poll, parameters: [:]).pollingStatus == "pending")

            // The phone opens the new link and approves with its passkey and the number shown.
            step = try await driver.sendForm(ask, parameters: ["username": .string(email)])
            _ = try await devices.answering(step).answerApproval(userId: subject)
            step = try await driver.sendForm(poll, parameters: [:])
            #expect(step.pollingStatus == "done")
            step = try await driver.sendForm(try #require(step.action("continue")?.form), parameters: [:])
            let (tokens, claims) = try await driver.finishStep(step)
            #expect(claims["sub"]?.stringValue == subject && claims["email"]?.stringValue == email)
            #expect(tokens.tokenType == "DPoP")
            // The kiosk holds no passkey.
            #expect(try phoneStorage.keyFiles().count == 1 && kioskStorage.keyFiles().isEmpty)
        }
    }

    @Test("a wrong number fails the approval; a new approval cancels the one before")
    func wrongNumber() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let phoneStorage = DeviceStorage()
            let kioskStorage = DeviceStorage()
            defer {
                phoneStorage.remove()
                kioskStorage.remove()
            }
            let devices = try await Devices.make(server, phone: phoneStorage, kiosk: kioskStorage)
            let driver = devices.kiosk
            let ask = try #require(
                try await driver.beginStep(prompt: nil, loginHint: nil, scopes: nil).action(
                    "approve-on-another-device")?.form)
            let first = try await driver.sendForm(ask, parameters: ["username": .string(devices.email)])
            // Asked again: the first approval is cancelled, its link answers nothing.
            let second = try await driver.sendForm(ask, parameters: ["username": .string(devices.email)])
            await #expect(throws: ZSMError.self) {
                _ = try await devices.answering(first).answerApproval(userId: devices.subject)
            }
            let poll = try #require(second.action("poll")?.form)
            #expect(try await driver.sendForm(poll, parameters: [:]).pollingStatus == "pending")

            let number = try #require(second.properties["matchingNumber"]?.stringValue)
            await #expect(throws: ZSMError.self) {
                _ = try await devices.answering(second, number: number == "10" ? "11" : "10")
                    .answerApproval(userId: devices.subject)
            }
            #expect(try await driver.sendForm(poll, parameters: [:]).pollingStatus == "failed")
        }
    }

    @Test("a denied approval fails the polling step, which offers a restart")
    func denied() async throws {
        try await LiveServer.with(ownPublicURL: true) { server in
            let phoneStorage = DeviceStorage()
            let kioskStorage = DeviceStorage()
            defer {
                phoneStorage.remove()
                kioskStorage.remove()
            }
            let devices = try await Devices.make(server, phone: phoneStorage, kiosk: kioskStorage)
            let driver = devices.kiosk
            var step = try await driver.beginStep(prompt: nil, loginHint: nil, scopes: nil)
            step = try await driver.sendForm(
                try #require(step.action("approve-on-another-device")?.form),
                parameters: ["username": .string(devices.email)])
            _ = try await devices.answering(step, decision: .deny).answerApproval(userId: devices.subject)
            step = try await driver.sendForm(try #require(step.action("poll")?.form), parameters: [:])
            #expect(step.pollingStatus == "failed")
            #expect(step.messages.first?.classList == ["error"])
            let restarted = try await driver.sendForm(try #require(step.action("restart")?.form), parameters: [:])
            #expect(restarted.metadata?.viewName == "umfa:choose")
        }
    }
}
