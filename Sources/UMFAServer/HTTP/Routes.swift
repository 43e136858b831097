import Hummingbird
import Prometheus
import UMFAContract

/// The router, built from the one table of operations (``APIOperation/declaration``): every
/// operation gets its handler from ``handler(for:)``, whose exhaustive switch makes a new
/// operation without a handler a compile error, and sits in the route group of its declared
/// access and error shape: admin operations behind ``AdminAuthorization``, issuer routes behind
/// ``IssuerResolution``, OAuth and flow routes behind their ``ErrorRendering``.
struct Routes {
    let features: ServerComposition
    let metrics: PrometheusCollectorRegistry
    let demoRoutes: Bool
    /// `UMFA_METRICS_TOKEN`; `nil` serves `/metrics` only to callers on this machine.
    var metricsToken: String? = nil

    /// Installs the middleware and every operation.
    func install(on router: Router<UMFARequestContext>) {
        router.add(middleware: RequestMetricsMiddleware(registry: metrics))
        router.add(middleware: ErrorMiddleware())
        // RFC 8705 §5: the mutual-TLS alias listener answers its endpoints only.
        router.add(middleware: MutualTLSAliasMiddleware(aliasBase: features.mutualTLSAliasURL))
        let built = RouteServices(
            features, metrics: metrics, metricsTokenHash: metricsToken.map(Secrets.hash),
            demoRoutes: demoRoutes)
        var groups = RouteGroups(
            router: router, issuers: features.issuers, logger: features.logger,
            adminAuthorization: features.adminAuthorization)
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

    /// The handler of each operation: decode, call the feature, encode. The features are built
    /// once (``ServerComposition``), and their route adapters when the router is (``RouteServices``).
    func handler(for operation: APIOperation, _ built: RouteServices) -> RouteHandler {
        let route = OperationRoute(operation)
        switch operation {
        case .registrationOptions: return route.json(features.registration.options)
        case .registrationVerify: return route.json(features.registration.verify)
        case .authenticationOptions: return route.json(features.authentication.options)
        case .authenticationVerify: return route.json(features.authentication.verify)
        case .unenroll: return route.json(features.authentication.unenroll)
        case .validateToken:
            return route.json(features.validateToken.validate)
        case .createEnrollmentToken:
            return route.json(features.enrollmentTokens.create)
        case .listUserCredentials:
            return route.plain { try await features.credentials.list($0.credentialTarget, caller: $1) }
        case .deleteUserCredential:
            return route.plain { try await features.credentials.delete($0.credentialTarget, caller: $1) }
        case .deleteUser:
            return route.empty { try await features.credentials.deleteUser($0.credentialTarget, caller: $1) }
        case .createApplication: return route.json(features.admin.create)
        case .listApplications: return route.plain { try await features.admin.list(caller: $1) }
        case .getApplication: return route.plain { try await features.admin.show(id: $0.path("id"), caller: $1) }
        case .updateApplication:
            return route.jsonWithPath { try await features.admin.update(id: $1.path("id"), $0, caller: $2) }
        case .createAPIKey:
            return route.plain { try await features.admin.addAPIKey(id: $0.path("id"), caller: $1) }
        case .listAPIKeys:
            return route.plain { try await features.admin.listAPIKeys(id: $0.path("id"), caller: $1) }
        case .deleteAPIKey:
            return route.plain {
                try await features.admin.deleteAPIKey(id: $0.path("id"), keyID: $0.path("key_id"), caller: $1)
            }
        case .rotateSigningKey:
            // The body is optional: none rotates every algorithm's sealed key.
            return { [admin = features.admin] request, context in
                let input = try await JSONExchange.read(SigningKeyRotationRequest.self, request, context: context)
                let caller = context.caller(request, traceID: input.traceID)
                let body = input.isEmpty ? nil : try input.decode()
                return try JSONExchange.response(
                    try await admin.rotateSigningKey(body, caller: caller), status: .created)
            }
        case .jwks: return built.publicRoutes.jwks
        case .appleAppSiteAssociation: return built.appSiteAssociation.apple
        case .assetLinks: return built.appSiteAssociation.android
        case .relatedOrigins: return built.relatedOrigins.handler
        case .health: return route.plain { HealthResponse(traceID: $1.traceID) }
        case .healthReady:
            // Not a failure of the request: the 503 is not logged per probe (Readiness logs each change).
            return { [readiness = features.readiness] request, context in
                let traceID = TraceID.from(request, context: context)
                if let notReady = await readiness.notReady() {
                    return ErrorMap.unavailable(notReady.message, traceID: traceID)
                }
                return try JSONExchange.response(HealthResponse(traceID: traceID), status: .ok)
            }
        case .metrics: return built.publicRoutes.prometheus
        case .openAPI: return built.publicRoutes.openAPI
        case .demoPage: return built.demoPage.home
        case .demoStylesheet, .demoScript, .demoWebAuthnScript, .hostedStylesheet, .hostedScript,
            .hostedWebAuthnScript, .hostedRecoveryScript, .hostedAccountScript, .hostedDeviceScript, .hostedPageScript,
            .consoleStylesheet, .consoleScript, .consoleWebAuthnScript:
            return StaticFiles.handler(operation)
        case .createOAuthClient: return route.jsonWithPath(features.oauthClientAdmin.create)
        case .listOAuthClients: return route.plain(features.oauthClientAdmin.list)
        case .getOAuthClient: return route.plain(features.oauthClientAdmin.show)
        case .updateOAuthClient: return route.jsonWithPath(features.oauthClientAdmin.update)
        case .deleteOAuthClient: return route.plain(features.oauthClientAdmin.delete)
        case .rotateOAuthClientSecret: return route.plain(features.oauthClientAdmin.rotateSecret)
        case .oidcDiscovery, .oauthServerMetadata:
            let alias = features.mutualTLSAliasURL
            return route.issuer { issuer, _, _ in issuer.metadata(mutualTLSAlias: alias) }
        case .oidcJWKS: return built.oauthRoutes.jwks
        case .oauthToken:
            return built.oauthRoutes.form(route) { [features] in
                try await features.provider.engine(for: $0).tokenPipeline.token($1)
            }
        case .oauthIntrospect:
            return built.oauthRoutes.form(route) { [features] in
                try await features.provider.engine(for: $0).introspection.introspect($1)
            }
        case .oauthPushedAuthorizationRequest:
            return built.oauthRoutes.form(route) { [features] in
                try await features.provider.engine(for: $0).pushedAuthorization.push($1)
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
        case .interactionVerifyEmail:
            return built.interactionRoutes.step { try await $0.verifyEmail($1, caller: $2) }
        case .updateUserProfile:
            return route.jsonWithPath {
                try await features.userProfiles.update($0, userID: $1.path("user_id"), caller: $2)
            }
        case .createInitialAccessToken:
            return route.jsonWithPath(features.initialAccessTokens.create)
        case .oauthRegisterClient: return built.clientRegistrationRoutes.register(route)
        case .oauthReadClientRegistration: return built.clientRegistrationRoutes.read(route)
        case .oauthUpdateClientRegistration: return built.clientRegistrationRoutes.update(route)
        case .oauthDeleteClientRegistration: return built.clientRegistrationRoutes.delete(route)
        case .oauthAttestationChallenge:
            return route.issuer { issuer, _, caller in
                try await features.provider.engine(for: issuer).attestation.newChallenge(caller: caller)
            }
        case .listMyCredentials:
            return route.plain { try await features.selfService.list(values: $0, caller: $1) }
        case .renameMyCredential: return route.jsonWithPath(features.selfService.rename)
        case .deleteMyCredential:
            return route.plain {
                try await features.selfService.delete(values: $0, caller: $1)
            }
        case .deleteMyAccount: return route.empty(features.selfService.deleteAccount)
        case .sendMyEmailVerification: return route.plain(features.emailVerification.send)
        case .requestEmailRecovery:
            return route.issuerJSON { [features] in
                try await features.emailRecovery.request($0, issuer: $1, caller: $2)
            }
        case .emailRecoveryPage: return RecoveryRoutes(recovery: features.emailRecovery).page()
        case .accountPage: return RecoveryRoutes.accountPage()
        case .oauthDeviceAuthorization:
            return built.oauthRoutes.form(route) { [features] in
                try await features.provider.engine(for: $0).deviceAuthorization.authorize($1)
            }
        case .oauthBackchannelAuthentication:
            return built.oauthRoutes.form(route) { [features] in
                try await features.provider.engine(for: $0).backchannelAuthentication.authenticate($1)
            }
        case .devicePage: return DeviceRoutes.page()
        case .deviceCodeLookup:
            return route.issuerJSON { [features] in
                try await features.provider.engine(for: $1).deviceApproval.lookup($0, caller: $2)
            }
        case .deviceDecision:
            let provider = features.provider
            return route.signedInJSON(loginTokens: provider.authentication.loginTokens, applications: provider.store) {
                try await provider.engine(for: $2).deviceApproval.decide($0, user: $1, caller: $3)
            }
        case .emailRecoveryOptions:
            return route.issuerJSON { [features] in
                try await features.emailRecovery.options($0, issuer: $1, caller: $2)
            }
        case .emailRecoveryVerify:
            return route.issuerJSON { [features] in
                try await features.emailRecovery.verify($0, issuer: $1, caller: $2)
            }
        case .verifyMyEmail: return route.jsonWithPath(features.emailVerification.verify)
        case .createMyRecoveryCodes:
            return route.plain {
                try await features.recoveryCodes.createMine(caller: $1)
            }
        case .countMyRecoveryCodes:
            return route.plain { try await features.recoveryCodes.countMine(caller: $1) }
        case .recoverAccount: return route.json(features.recoveryCodes.redeem)
        case .createUserRecoveryCodes:
            return route.jsonWithPath(features.recoveryCodes.createForUser)
        case .listAuditEvents:
            return route.plain { try await features.auditEvents.all(values: $0, caller: $1) }
        case .listApplicationAuditEvents:
            return route.plain {
                try await features.auditEvents.application(values: $0, caller: $1)
            }
        case .listApplicationUsers: return route.plain(features.admin.users)
        case .listApplicationUserCredentials: return route.plain(features.admin.userCredentials)
        case .deleteApplicationUserCredential: return route.plain(features.admin.deleteUserCredential)
        case .deleteApplicationUser: return route.empty(features.admin.deleteUser)
        case .createApplicationUserRecoveryCodes:
            return route.plain(features.admin.userRecoveryCodes)
        case .listSigningKeys: return route.plain { try await features.admin.signingKeys(caller: $1) }
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
            return route.json(features.outOfBand.enroll)
        case .createApproval:
            return route.json(
                features.outOfBand.approve
            )
        case .transactionStatus: return route.json(features.outOfBand.status)
        case .dispatchRedeem: return route.json(features.outOfBand.redeem)
        case .dispatchComplete: return route.json(features.outOfBand.complete)
        case .openAppLink: return { _, _ in OpenPage.response() }
        case .adminOutOfBandEnroll: return route.plain(features.outOfBand.enroll)
        case .pendingApprovals:
            return route.json(features.pendingApprovals.fetch)
        case .approvalEvents: return features.pendingApprovals.stream
        case .updateDeviceInformation: return route.json(features.deviceInformation.update)
        case .rotateWebhookSecret: return route.plain(features.admin.rotateWebhookSecret)
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
            return built.oauthRoutes.form(route) { [features] issuer, request -> RemovedResponse? in
                try await features.provider.engine(for: issuer).revocation.revoke(request)
                return nil
            }
        }
    }
}
