import Hummingbird
import Prometheus
import UMFAContract

/// The router, built from the one table of operations (``APIOperation/declaration``): every
/// operation gets its handler from ``handler(for:)``, whose exhaustive switch makes a new
/// operation without a handler a compile error, and sits in the route group of its declared
/// access and error shape: admin operations behind ``AdminAuthorization``, issuer routes behind
/// ``IssuerResolution``, OAuth and flow routes behind their ``ErrorRendering``.
struct Routes {
    let services: ServerServices
    let metrics: PrometheusCollectorRegistry
    let demoRoutes: Bool
    /// `UMFA_METRICS_TOKEN`; `nil` serves `/metrics` only to callers on this machine.
    var metricsToken: String? = nil

    /// Installs the middleware and every operation.
    func install(on router: Router<UMFARequestContext>) {
        router.add(middleware: RequestMetricsMiddleware(registry: metrics))
        router.add(middleware: ErrorMiddleware())
        var groups = RouteGroups(router: router, services: services)
        for operation in APIOperation.allCases {
            let declaration = operation.declaration
            let path = RouterPath(Self.routerPath(declaration.path))
            let method = HTTPRequest.Method(declaration.method) ?? .get
            groups.group(for: declaration).on(path, method: method, use: handler(for: operation))
        }
    }

    /// `/users/{user_id}` as Hummingbird writes it: `/users/:user_id`.
    static func routerPath(_ path: String) -> String {
        path.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: "")
    }

    /// The handler of each operation: decode, call the service, encode.
    func handler(for operation: APIOperation) -> RouteHandler {
        let registration = RegistrationService(services: services)
        let authentication = AuthenticationService(services: services)
        let credentials = CredentialService(services: services)
        let admin = AdminService(services: services)
        let publicRoutes = PublicRoutes(
            services: services, metrics: metrics, metricsTokenHash: metricsToken.map(Secrets.hash))
        let demoPage = DemoPage(services: services, demoRoutes: demoRoutes)
        let oauthClients = OAuthClientAdmin(services: services)
        let oauth = OAuthRoutes(services: services)
        let interactions = InteractionRoutes(services: services)
        let flow = APIFlowRoutes(services: services)
        let console = ConsoleRoutes(services: services)
        let route = OperationRoute(operation)
        switch operation {
        case .registrationOptions: return route.json(registration.options)
        case .registrationVerify: return route.json(registration.verify)
        case .authenticationOptions: return route.json(authentication.options)
        case .authenticationVerify: return route.json(authentication.verify)
        case .unenroll: return route.json(authentication.unenroll)
        case .validateToken:
            return route.json(ValidateTokenService(services: services).validate)
        case .createEnrollmentToken:
            return route.json(EnrollmentTokenService(services: services).create)
        case .listUserCredentials:
            return route.plain { try await credentials.list($0.credentialTarget, caller: $1) }
        case .deleteUserCredential:
            return route.plain { try await credentials.delete($0.credentialTarget, caller: $1) }
        case .createApplication: return route.json(admin.create)
        case .listApplications: return route.plain { try await admin.list(caller: $1) }
        case .getApplication: return route.plain { try await admin.show(id: $0.path("id"), caller: $1) }
        case .updateApplication:
            return route.jsonWithPath { try await admin.update(id: $1.path("id"), $0, caller: $2) }
        case .createAPIKey:
            return route.plain { try await admin.addAPIKey(id: $0.path("id"), caller: $1) }
        case .listAPIKeys: return route.plain { try await admin.listAPIKeys(id: $0.path("id"), caller: $1) }
        case .deleteAPIKey:
            return route.plain {
                try await admin.deleteAPIKey(id: $0.path("id"), keyID: $0.path("key_id"), caller: $1)
            }
        case .rotateSigningKey:
            return route.plain { try await admin.rotateSigningKey(caller: $1) }
        case .jwks: return publicRoutes.jwks
        case .appleAppSiteAssociation: return AppSiteAssociation(services: services).apple
        case .assetLinks: return AppSiteAssociation(services: services).android
        case .health: return route.plain { HealthResponse(traceID: $1.traceID) }
        case .metrics: return publicRoutes.prometheus
        case .openAPI: return publicRoutes.openAPI
        case .demoPage: return demoPage.home
        case .demoStylesheet: return { request, _ in try demoPage.asset("demo.css", request: request) }
        case .demoScript: return { request, _ in try demoPage.asset("demo.js", request: request) }
        case .createOAuthClient: return route.jsonWithPath(oauthClients.create)
        case .listOAuthClients: return route.plain(oauthClients.list)
        case .getOAuthClient: return route.plain(oauthClients.show)
        case .updateOAuthClient: return route.jsonWithPath(oauthClients.update)
        case .deleteOAuthClient: return route.plain(oauthClients.delete)
        case .rotateOAuthClientSecret: return route.plain(oauthClients.rotateSecret)
        case .oidcDiscovery, .oauthServerMetadata: return route.issuer { issuer, _, _ in issuer.metadata }
        case .oidcJWKS: return oauth.jwks
        case .oauthToken: return oauth.form(route) { try await $0.token(form: $1, authorization: $2, caller: $3) }
        case .oauthIntrospect:
            return oauth.form(route) { try await $0.introspect(form: $1, authorization: $2, caller: $3) }
        case .oauthPushedAuthorizationRequest:
            return oauth.form(route) { try await $0.push(form: $1, authorization: $2, caller: $3) }
        case .oauthAuthorize: return AuthorizeEndpoint(services: services).handle
        case .oauthUserinfo, .oauthUserinfoPost: return UserinfoEndpoint(services: services).handle
        case .oauthLogout: return LogoutEndpoint(services: services).handle
        case .oauthLogoutPost: return LogoutEndpoint(services: services).handlePost
        case .interactionSignInOptions: return interactions.route { try await $0.signInOptions($1, caller: $2) }
        case .interactionSignInVerify: return interactions.step { try await $0.signInVerify($1, caller: $2) }
        case .interactionCreateAccountOptions:
            return interactions.route { try await $0.createAccountOptions($1, caller: $2) }
        case .interactionCreateAccountVerify:
            return interactions.step { try await $0.createAccountVerify($1, caller: $2) }
        case .interactionConsent: return interactions.step { try await $0.consent($1, caller: $2) }
        case .hostedStylesheet:
            return { request, _ in try DemoPage.serve(HostedPages.files["hosted.css"], request: request) }
        case .hostedScript:
            return { request, _ in try DemoPage.serve(HostedPages.files["hosted.js"], request: request) }
        case .hostedWebAuthnScript:
            return { request, _ in try DemoPage.serve(HostedPages.files["webauthn-json.js"], request: request) }
        case .demoWebAuthnScript: return { request, _ in try demoPage.asset("webauthn-json.js", request: request) }
        case .updateUserProfile:
            return route.jsonWithPath {
                try await UserProfiles(services: services).update($0, userID: $1.path("user_id"), caller: $2)
            }
        case .createInitialAccessToken:
            return route.jsonWithPath(InitialAccessTokens(services: services).create)
        case .oauthRegisterClient: return ClientRegistrationRoutes(services: services).register(route)
        case .oauthReadClientRegistration: return ClientRegistrationRoutes(services: services).read(route)
        case .oauthUpdateClientRegistration: return ClientRegistrationRoutes(services: services).update(route)
        case .oauthDeleteClientRegistration: return ClientRegistrationRoutes(services: services).delete(route)
        case .oauthAttestationChallenge:
            return route.issuer { issuer, _, caller in
                try await ClientAttestationCheck(services: services, issuer: issuer).newChallenge(caller: caller)
            }
        case .listMyCredentials:
            return route.plain { try await SelfServiceService(services: services).list(caller: $1) }
        case .renameMyCredential: return route.jsonWithPath(SelfServiceService(services: services).rename)
        case .deleteMyCredential:
            return route.plain {
                try await SelfServiceService(services: services).delete(values: $0, caller: $1)
            }
        case .createMyRecoveryCodes:
            return route.plain {
                try await RecoveryCodes(services: services).createMine(caller: $1)
            }
        case .countMyRecoveryCodes:
            return route.plain { try await RecoveryCodes(services: services).countMine(caller: $1) }
        case .recoverAccount: return route.json(RecoveryCodes(services: services).redeem)
        case .createUserRecoveryCodes:
            return route.jsonWithPath(RecoveryCodes(services: services).createForUser)
        case .listAuditEvents:
            return route.plain { try await AuditEventQuery(services: services).all(values: $0, caller: $1) }
        case .listApplicationAuditEvents:
            return route.plain {
                try await AuditEventQuery(services: services).application(values: $0, caller: $1)
            }
        case .listApplicationUsers: return route.plain(admin.users)
        case .listApplicationUserCredentials: return route.plain(admin.userCredentials)
        case .deleteApplicationUserCredential: return route.plain(admin.deleteUserCredential)
        case .createApplicationUserRecoveryCodes:
            return route.plain(admin.userRecoveryCodes)
        case .listSigningKeys: return route.plain { try await admin.signingKeys(caller: $1) }
        case .consolePage: return console.page
        case .consoleStylesheet: return console.asset("console.css")
        case .consoleScript: return console.asset("console.js")
        case .consoleWebAuthnScript: return console.asset("webauthn-json.js")
        case .consoleSession: return console.session
        case .consoleEnrollOptions: return console.enrollOptions
        case .consoleEnroll: return console.enroll
        case .consoleSignInOptions: return console.signInOptions
        case .consoleSignIn: return console.signIn
        case .consoleSignOut: return console.signOut
        case .listConsoleCredentials: return console.listCredentials
        case .deleteConsoleCredential: return console.deleteCredential
        case .listConsoleSessions: return console.listSessions
        case .deleteConsoleSession: return console.deleteSession
        case .outOfBandEnroll:
            return route.json(OutOfBandService(services: services).enroll)
        case .createApproval:
            return route.json(
                OutOfBandService(services: services).approve
            )
        case .transactionStatus: return route.json(OutOfBandService(services: services).status)
        case .dispatchRedeem: return route.json(OutOfBandService(services: services).redeem)
        case .dispatchComplete: return route.json(OutOfBandService(services: services).complete)
        case .openAppLink: return { _, _ in OpenPage.response() }
        case .adminOutOfBandEnroll: return route.plain(OutOfBandService(services: services).enroll)
        case .pendingApprovals:
            return route.json(PendingApprovals(services: services).fetch)
        case .approvalEvents: return PendingApprovals(services: services).stream
        case .rotateWebhookSecret: return route.plain(admin.rotateWebhookSecret)
        case .flowStep: return flow.route("", readsBody: false) { try await $0.current($1, caller: $3) }
        case .flowSignIn: return flow.route("/sign-in") { try await $0.signIn($1, $2, caller: $3) }
        case .flowSignInVerify: return flow.route("/sign-in/verify") { try await $0.signInVerify($1, $2, caller: $3) }
        case .flowCreateAccount: return flow.route("/create-account") { try await $0.createAccount($1, $2, caller: $3) }
        case .flowCreateAccountVerify:
            return flow.route("/create-account/verify") { try await $0.createAccountVerify($1, $2, caller: $3) }
        case .flowConsent: return flow.route("/consent") { try await $0.consent($1, $2, caller: $3) }
        case .flowStartApproval: return flow.route("/approval") { try await $0.startApproval($1, $2, caller: $3) }
        case .flowPollApproval:
            return flow.route("/approval", readsBody: false) { try await $0.pollApproval($1, caller: $3) }
        case .oauthRevoke:
            return oauth.form(route) { endpoint, form, authorization, caller -> RemovedResponse? in
                try await endpoint.revoke(form: form, authorization: authorization, caller: caller)
                return nil
            }
        }
    }
}
