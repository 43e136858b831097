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
        // RFC 8705 §5: the mutual-TLS alias listener answers its endpoints only.
        router.add(middleware: MutualTLSAliasMiddleware(aliasBase: services.mutualTLSAliasURL))
        let built = RouteServices(
            services: services, metrics: metrics, metricsTokenHash: metricsToken.map(Secrets.hash),
            demoRoutes: demoRoutes)
        var groups = RouteGroups(
            router: router, issuers: built.issuers, logger: services.logger,
            adminAuthorization: services.adminAuthorization)
        for operation in APIOperation.allCases {
            let declaration = operation.declaration
            let path = RouterPath(Self.routerPath(declaration.path))
            let method = HTTPRequest.Method(declaration.method) ?? .get
            groups.group(for: declaration).on(path, method: method, use: handler(for: operation, built))
        }
    }

    /// `/users/{user_id}` as Hummingbird writes it: `/users/:user_id`.
    static func routerPath(_ path: String) -> String {
        path.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: "")
    }

    /// The handler of each operation: decode, call the service, encode. The services are built
    /// once (``RouteServices``), when the router is.
    func handler(for operation: APIOperation, _ built: RouteServices) -> RouteHandler {
        let route = OperationRoute(operation)
        switch operation {
        case .registrationOptions: return route.json(built.registrationService.options)
        case .registrationVerify: return route.json(built.registrationService.verify)
        case .authenticationOptions: return route.json(built.authenticationService.options)
        case .authenticationVerify: return route.json(built.authenticationService.verify)
        case .unenroll: return route.json(built.authenticationService.unenroll)
        case .validateToken:
            return route.json(built.validateTokenService.validate)
        case .createEnrollmentToken:
            return route.json(built.enrollmentTokenService.create)
        case .listUserCredentials:
            return route.plain { try await built.credentialService.list($0.credentialTarget, caller: $1) }
        case .deleteUserCredential:
            return route.plain { try await built.credentialService.delete($0.credentialTarget, caller: $1) }
        case .createApplication: return route.json(built.adminService.create)
        case .listApplications: return route.plain { try await built.adminService.list(caller: $1) }
        case .getApplication: return route.plain { try await built.adminService.show(id: $0.path("id"), caller: $1) }
        case .updateApplication:
            return route.jsonWithPath { try await built.adminService.update(id: $1.path("id"), $0, caller: $2) }
        case .createAPIKey:
            return route.plain { try await built.adminService.addAPIKey(id: $0.path("id"), caller: $1) }
        case .listAPIKeys:
            return route.plain { try await built.adminService.listAPIKeys(id: $0.path("id"), caller: $1) }
        case .deleteAPIKey:
            return route.plain {
                try await built.adminService.deleteAPIKey(id: $0.path("id"), keyID: $0.path("key_id"), caller: $1)
            }
        case .rotateSigningKey:
            return route.plain { try await built.adminService.rotateSigningKey(caller: $1) }
        case .jwks: return built.publicRoutes.jwks
        case .appleAppSiteAssociation: return built.appSiteAssociation.apple
        case .assetLinks: return built.appSiteAssociation.android
        case .relatedOrigins: return RelatedOriginsRoute(service: RelatedOriginsService(store: services.store)).handler
        case .health: return route.plain { HealthResponse(traceID: $1.traceID) }
        case .metrics: return built.publicRoutes.prometheus
        case .openAPI: return built.publicRoutes.openAPI
        case .demoPage: return built.demoPage.home
        case .demoStylesheet, .demoScript, .demoWebAuthnScript, .hostedStylesheet, .hostedScript,
            .hostedWebAuthnScript, .consoleStylesheet, .consoleScript, .consoleWebAuthnScript:
            return StaticFiles.handler(operation)
        case .createOAuthClient: return route.jsonWithPath(built.oauthClientAdmin.create)
        case .listOAuthClients: return route.plain(built.oauthClientAdmin.list)
        case .getOAuthClient: return route.plain(built.oauthClientAdmin.show)
        case .updateOAuthClient: return route.jsonWithPath(built.oauthClientAdmin.update)
        case .deleteOAuthClient: return route.plain(built.oauthClientAdmin.delete)
        case .rotateOAuthClientSecret: return route.plain(built.oauthClientAdmin.rotateSecret)
        case .oidcDiscovery, .oauthServerMetadata:
            let alias = services.mutualTLSAliasURL
            return route.issuer { issuer, _, _ in issuer.metadata(mutualTLSAlias: alias) }
        case .oidcJWKS: return built.oauthRoutes.jwks
        case .oauthToken:
            return built.oauthRoutes.form(route) { [services] in
                try await OAuthComposition(services: services, issuer: $0).tokenPipeline.token($1)
            }
        case .oauthIntrospect:
            return built.oauthRoutes.form(route) { [services] in
                try await OAuthComposition(services: services, issuer: $0).introspection.introspect($1)
            }
        case .oauthPushedAuthorizationRequest:
            return built.oauthRoutes.form(route) { [services] in
                try await OAuthComposition(services: services, issuer: $0).pushedAuthorization.push($1)
            }
        case .oauthAuthorize: return built.authorizeEndpoint.handle
        case .oauthUserinfo, .oauthUserinfoPost: return built.userinfoEndpoint.handle
        case .oauthLogout: return built.logoutEndpoint.handle
        case .oauthLogoutPost: return built.logoutEndpoint.handlePost
        case .interactionSignInOptions:
            return built.interactionRoutes.route { try await $0.signInOptions($1, caller: $2) }
        case .interactionSignInVerify: return built.interactionRoutes.step { try await $0.signInVerify($1, caller: $2) }
        case .interactionCreateAccountOptions:
            return built.interactionRoutes.route { try await $0.createAccountOptions($1, caller: $2) }
        case .interactionCreateAccountVerify:
            return built.interactionRoutes.step { try await $0.createAccountVerify($1, caller: $2) }
        case .interactionConsent: return built.interactionRoutes.step { try await $0.consent($1, caller: $2) }
        case .updateUserProfile:
            return route.jsonWithPath {
                try await built.userProfiles.update($0, userID: $1.path("user_id"), caller: $2)
            }
        case .createInitialAccessToken:
            return route.jsonWithPath(built.initialAccessTokens.create)
        case .oauthRegisterClient: return built.clientRegistrationRoutes.register(route)
        case .oauthReadClientRegistration: return built.clientRegistrationRoutes.read(route)
        case .oauthUpdateClientRegistration: return built.clientRegistrationRoutes.update(route)
        case .oauthDeleteClientRegistration: return built.clientRegistrationRoutes.delete(route)
        case .oauthAttestationChallenge:
            return route.issuer { issuer, _, caller in
                try await ClientAttestationCheck(services: services, issuer: issuer).newChallenge(caller: caller)
            }
        case .listMyCredentials:
            return route.plain { try await built.selfServiceService.list(values: $0, caller: $1) }
        case .renameMyCredential: return route.jsonWithPath(built.selfServiceService.rename)
        case .deleteMyCredential:
            return route.plain {
                try await built.selfServiceService.delete(values: $0, caller: $1)
            }
        case .createMyRecoveryCodes:
            return route.plain {
                try await built.recoveryCodes.createMine(caller: $1)
            }
        case .countMyRecoveryCodes:
            return route.plain { try await built.recoveryCodes.countMine(caller: $1) }
        case .recoverAccount: return route.json(built.recoveryCodes.redeem)
        case .createUserRecoveryCodes:
            return route.jsonWithPath(built.recoveryCodes.createForUser)
        case .listAuditEvents:
            return route.plain { try await built.auditEventQuery.all(values: $0, caller: $1) }
        case .listApplicationAuditEvents:
            return route.plain {
                try await built.auditEventQuery.application(values: $0, caller: $1)
            }
        case .listApplicationUsers: return route.plain(built.adminService.users)
        case .listApplicationUserCredentials: return route.plain(built.adminService.userCredentials)
        case .deleteApplicationUserCredential: return route.plain(built.adminService.deleteUserCredential)
        case .createApplicationUserRecoveryCodes:
            return route.plain(built.adminService.userRecoveryCodes)
        case .listSigningKeys: return route.plain { try await built.adminService.signingKeys(caller: $1) }
        case .consolePage: return built.consoleRoutes.page
        case .consoleSession: return built.consoleRoutes.session
        case .consoleEnrollOptions: return built.consoleRoutes.enrollOptions
        case .consoleEnroll: return built.consoleRoutes.enroll
        case .consoleSignInOptions: return built.consoleRoutes.signInOptions
        case .consoleSignIn: return built.consoleRoutes.signIn
        case .consoleSignOut: return built.consoleRoutes.signOut
        case .listConsoleCredentials: return built.consoleRoutes.listCredentials
        case .deleteConsoleCredential: return built.consoleRoutes.deleteCredential
        case .listConsoleSessions: return built.consoleRoutes.listSessions
        case .deleteConsoleSession: return built.consoleRoutes.deleteSession
        case .outOfBandEnroll:
            return route.json(built.outOfBandService.enroll)
        case .createApproval:
            return route.json(
                built.outOfBandService.approve
            )
        case .transactionStatus: return route.json(built.outOfBandService.status)
        case .dispatchRedeem: return route.json(built.outOfBandService.redeem)
        case .dispatchComplete: return route.json(built.outOfBandService.complete)
        case .openAppLink: return { _, _ in OpenPage.response() }
        case .adminOutOfBandEnroll: return route.plain(built.outOfBandService.enroll)
        case .pendingApprovals:
            return route.json(built.pendingApprovals.fetch)
        case .approvalEvents: return built.pendingApprovals.stream
        case .updateDeviceInformation: return route.json(DeviceInformationRoute(store: services.store, deviceProofs: services.deviceProofs).update)
        case .rotateWebhookSecret: return route.plain(built.adminService.rotateWebhookSecret)
        case .flowStep: return built.apiFlowRoutes.route("", readsBody: false) { try await $0.current($1, caller: $3) }
        case .flowSignIn: return built.apiFlowRoutes.route("/sign-in") { try await $0.signIn($1, $2, caller: $3) }
        case .flowSignInVerify:
            return built.apiFlowRoutes.route("/sign-in/verify") { try await $0.signInVerify($1, $2, caller: $3) }
        case .flowCreateAccount:
            return built.apiFlowRoutes.route("/create-account") { try await $0.createAccount($1, $2, caller: $3) }
        case .flowCreateAccountVerify:
            return built.apiFlowRoutes.route("/create-account/verify") {
                try await $0.createAccountVerify($1, $2, caller: $3)
            }
        case .flowConsent: return built.apiFlowRoutes.route("/consent") { try await $0.consent($1, $2, caller: $3) }
        case .flowStartApproval:
            return built.apiFlowRoutes.route("/approval") { try await $0.startApproval($1, $2, caller: $3) }
        case .flowPollApproval:
            return built.apiFlowRoutes.route("/approval", readsBody: false) {
                try await $0.pollApproval($1, caller: $3)
            }
        case .oauthRevoke:
            return built.oauthRoutes.form(route) { [services] issuer, request -> RemovedResponse? in
                try await OAuthComposition(services: services, issuer: issuer).revocation.revoke(request)
                return nil
            }
        }
    }
}
