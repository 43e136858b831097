/// One operation's declaration: everything the router, the access checks, the error rendering,
/// the clients and the contract test need to know about it.
public struct OperationDeclaration: Sendable {
    /// The HTTP method, upper case.
    public let method: String
    /// The path as OpenAPI writes it, parameters in braces.
    public let path: String
    /// Who may call it.
    public let access: APIOperation.Access
    /// The shape its failures take.
    public let errorShape: APIOperation.ErrorShape
    /// The status of its success answer.
    public let successStatus: Int
    /// Whether its success answer is an RFC document (OAuth and OpenID Connect shapes, no
    /// `trace_id`) rather than a UMFA body: every OAuth-shaped endpoint, and the metadata and
    /// JWKS documents, whose failures are UMFA's.
    public let answersInRFCShape: Bool
    /// The JSON request body, or `nil`.
    public let requestBody: (any ContractBody.Type)?
    /// The JSON body of the success answer, or `nil` when it is not a UMFA JSON object.
    public let responseBody: (any ContractBody.Type)?

    /// Whether the path lies under an issuer (`/oidc/{application_id}/…`), which the server
    /// resolves once, before the operation runs.
    public var isUnderIssuer: Bool { path.contains("{application_id}") }

    static func declare(
        _ method: String, _ path: String, access: APIOperation.Access, errors: APIOperation.ErrorShape,
        status: Int, body: (any ContractBody.Type)?, answer: (any ContractBody.Type)?, rfcAnswer: Bool = false
    ) -> OperationDeclaration {
        OperationDeclaration(
            method: method, path: path, access: access, errorShape: errors, successStatus: status,
            answersInRFCShape: rfcAnswer || errors == .oauth, requestBody: body, responseBody: answer)
    }

    static func get(
        _ path: String, access: APIOperation.Access = .open, errors: APIOperation.ErrorShape = .umfa,
        rfcAnswer: Bool = false, answer: (any ContractBody.Type)? = nil
    ) -> OperationDeclaration {
        declare(
            "GET", path, access: access, errors: errors, status: 200, body: nil, answer: answer, rfcAnswer: rfcAnswer)
    }

    static func post(
        _ path: String, access: APIOperation.Access = .open, errors: APIOperation.ErrorShape = .umfa,
        status: Int = 200, body: (any ContractBody.Type)? = nil, answer: (any ContractBody.Type)? = nil
    ) -> OperationDeclaration {
        declare("POST", path, access: access, errors: errors, status: status, body: body, answer: answer)
    }

    static func put(
        _ path: String, access: APIOperation.Access = .open, errors: APIOperation.ErrorShape = .umfa,
        body: (any ContractBody.Type)? = nil, answer: (any ContractBody.Type)? = nil
    ) -> OperationDeclaration {
        declare("PUT", path, access: access, errors: errors, status: 200, body: body, answer: answer)
    }

    static func patch(
        _ path: String, access: APIOperation.Access = .open, errors: APIOperation.ErrorShape = .umfa,
        body: (any ContractBody.Type)? = nil, answer: (any ContractBody.Type)? = nil
    ) -> OperationDeclaration {
        declare("PATCH", path, access: access, errors: errors, status: 200, body: body, answer: answer)
    }

    static func delete(
        _ path: String, access: APIOperation.Access = .open, errors: APIOperation.ErrorShape = .umfa,
        status: Int = 200, answer: (any ContractBody.Type)? = nil
    ) -> OperationDeclaration {
        declare("DELETE", path, access: access, errors: errors, status: status, body: nil, answer: answer)
    }
}

extension APIOperation {
    /// The one declaration of each operation. The switch is exhaustive (no `default:`): a new
    /// operation does not compile until it says its method, path, access and shapes.
    public var declaration: OperationDeclaration {
        switch self {
        case .registrationOptions:
            .post(
                "/api/umfa/registration/options", body: RegistrationOptionsRequest.self,
                answer: RegistrationOptionsResponse.self)
        case .registrationVerify:
            .post("/api/umfa/registration/verify", body: RegistrationVerifyRequest.self, answer: CeremonyResponse.self)
        case .authenticationOptions:
            .post(
                "/api/umfa/authentication/options", body: AuthenticationOptionsRequest.self,
                answer: AuthenticationOptionsResponse.self)
        case .authenticationVerify:
            .post(
                "/api/umfa/authentication/verify", body: AuthenticationVerifyRequest.self, answer: CeremonyResponse.self
            )
        case .unenroll: .post("/api/umfa/unenroll", body: UnenrollRequest.self, answer: UnenrollResponse.self)
        case .validateToken:
            .post(
                "/api/umfa/validate-token", access: .apiKey, body: ValidateTokenRequest.self,
                answer: ValidateTokenResponse.self)
        case .createEnrollmentToken:
            .post(
                "/api/umfa/enrollment-tokens", access: .apiKey, status: 201, body: EnrollmentTokenRequest.self,
                answer: EnrollmentTokenResponse.self)
        case .listUserCredentials:
            .get("/api/umfa/users/{user_id}/credentials", access: .apiKey, answer: CredentialListResponse.self)
        case .deleteUserCredential:
            .delete(
                "/api/umfa/users/{user_id}/credentials/{credential_id}", access: .apiKey, answer: RemovedResponse.self)
        case .deleteUser: .delete("/api/umfa/users/{user_id}", access: .apiKey, status: 204)
        case .createApplication:
            .post(
                "/api/admin/applications", access: .adminToken, status: 201, body: CreateApplicationRequest.self,
                answer: ApplicationResponse.self)
        case .listApplications:
            .get("/api/admin/applications", access: .adminToken, answer: ApplicationListResponse.self)
        case .getApplication:
            .get("/api/admin/applications/{id}", access: .adminToken, answer: ApplicationResponse.self)
        case .updateApplication:
            .patch(
                "/api/admin/applications/{id}", access: .adminToken, body: ApplicationSettingsRequest.self,
                answer: ApplicationResponse.self)
        case .createAPIKey:
            .post(
                "/api/admin/applications/{id}/api-keys", access: .adminToken, status: 201,
                answer: APIKeyCreatedResponse.self)
        case .listAPIKeys:
            .get("/api/admin/applications/{id}/api-keys", access: .adminToken, answer: APIKeyListResponse.self)
        case .deleteAPIKey:
            .delete("/api/admin/applications/{id}/api-keys/{key_id}", access: .adminToken, answer: RemovedResponse.self)
        case .rotateSigningKey:
            .post(
                "/api/admin/signing-keys", access: .adminToken, status: 201, body: SigningKeyRotationRequest.self,
                answer: SigningKeyRotatedResponse.self)
        case .jwks: .get("/.well-known/jwks.json")
        case .health: .get("/health", answer: HealthResponse.self)
        case .healthReady: .get("/health/ready", answer: HealthResponse.self)
        case .metrics: .get("/metrics")
        case .openAPI: .get("/openapi.yaml")
        case .demoPage: .get("/")
        case .demoStylesheet: .get("/demo/demo.css")
        case .demoScript: .get("/demo/demo.js")
        case .createOAuthClient:
            .post(
                "/api/admin/applications/{id}/oauth-clients", access: .adminToken, status: 201,
                body: OAuthClientRequest.self, answer: OAuthClientResponse.self)
        case .listOAuthClients:
            .get(
                "/api/admin/applications/{id}/oauth-clients", access: .adminToken, answer: OAuthClientListResponse.self)
        case .getOAuthClient:
            .get(
                "/api/admin/applications/{id}/oauth-clients/{client_id}", access: .adminToken,
                answer: OAuthClientResponse.self)
        case .updateOAuthClient:
            .patch(
                "/api/admin/applications/{id}/oauth-clients/{client_id}", access: .adminToken,
                body: OAuthClientRequest.self, answer: OAuthClientResponse.self)
        case .deleteOAuthClient:
            .delete(
                "/api/admin/applications/{id}/oauth-clients/{client_id}", access: .adminToken,
                answer: RemovedResponse.self)
        case .rotateOAuthClientSecret:
            .post(
                "/api/admin/applications/{id}/oauth-clients/{client_id}/secret", access: .adminToken,
                answer: OAuthClientResponse.self)
        case .oidcDiscovery:
            .get(
                "/oidc/{application_id}/.well-known/openid-configuration", rfcAnswer: true,
                answer: AuthorizationServerMetadata.self)
        case .oauthServerMetadata:
            .get(
                "/.well-known/oauth-authorization-server/oidc/{application_id}", rfcAnswer: true,
                answer: AuthorizationServerMetadata.self)
        case .oidcJWKS: .get("/oidc/{application_id}/jwks", rfcAnswer: true)
        case .oauthToken:
            .post("/oidc/{application_id}/token", access: .oauthClient, errors: .oauth, answer: OAuthTokenResponse.self)
        case .oauthIntrospect:
            .post(
                "/oidc/{application_id}/introspect", access: .oauthClient, errors: .oauth,
                answer: IntrospectionResponse.self)
        case .oauthRevoke: .post("/oidc/{application_id}/revoke", access: .oauthClient, errors: .oauth)
        case .oauthAuthorize: .get("/oidc/{application_id}/authorize", errors: .page)
        case .oauthUserinfo: .get("/oidc/{application_id}/userinfo", errors: .oauth, answer: UserinfoResponse.self)
        case .oauthLogout: .get("/oidc/{application_id}/logout", errors: .page)
        case .oauthLogoutPost: .post("/oidc/{application_id}/logout", errors: .page)
        case .interactionSignInOptions:
            .post(
                "/oidc/{application_id}/interaction/sign-in/options", body: InteractionSignInOptionsRequest.self,
                answer: AuthenticationOptionsResponse.self)
        case .interactionSignInVerify:
            .post(
                "/oidc/{application_id}/interaction/sign-in/verify", body: InteractionSignInVerifyRequest.self,
                answer: InteractionStepResponse.self)
        case .interactionCreateAccountOptions:
            .post(
                "/oidc/{application_id}/interaction/create-account/options", body: InteractionCreateAccountRequest.self,
                answer: RegistrationOptionsResponse.self)
        case .interactionCreateAccountVerify:
            .post(
                "/oidc/{application_id}/interaction/create-account/verify",
                body: InteractionCreateAccountVerifyRequest.self, answer: InteractionStepResponse.self)
        case .interactionConsent:
            .post(
                "/oidc/{application_id}/interaction/consent", body: InteractionConsentRequest.self,
                answer: InteractionStepResponse.self)
        case .interactionVerifyEmail:
            .post(
                "/oidc/{application_id}/interaction/verify-email", body: InteractionVerifyEmailRequest.self,
                answer: InteractionStepResponse.self)
        case .hostedStylesheet: .get("/hosted/hosted.css")
        case .hostedScript: .get("/hosted/hosted.js")
        case .hostedWebAuthnScript: .get("/hosted/webauthn-json.js")
        case .hostedRecoveryScript: .get("/hosted/hosted-recovery.js")
        case .accountPage: .get("/oidc/{application_id}/account")
        case .hostedAccountScript: .get("/hosted/hosted-account.js")
        case .oauthDeviceAuthorization:
            .post(
                "/oidc/{application_id}/device_authorization", access: .oauthClient, errors: .oauth,
                answer: DeviceAuthorizationResponse.self)
        case .oauthBackchannelAuthentication:
            .post(
                "/oidc/{application_id}/bc-authorize", access: .oauthClient, errors: .oauth,
                answer: BackchannelAuthenticationResponse.self)
        case .devicePage: .get("/oidc/{application_id}/device")
        case .deviceCodeLookup:
            .post("/oidc/{application_id}/device/code", body: DeviceCodeRequest.self, answer: DeviceCodeResponse.self)
        case .deviceDecision:
            .post(
                "/oidc/{application_id}/device/decision", access: .loginToken, body: DeviceDecisionRequest.self,
                answer: DeviceDecisionResponse.self)
        case .hostedDeviceScript: .get("/hosted/hosted-device.js")
        case .hostedPageScript: .get("/hosted/hosted-page.js")
        case .requestEmailRecovery:
            .post(
                "/oidc/{application_id}/recovery", status: 202, body: EmailRecoveryRequest.self,
                answer: EmailRecoveryResponse.self)
        case .emailRecoveryPage: .get("/oidc/{application_id}/recovery/{token}")
        case .emailRecoveryOptions:
            .post(
                "/oidc/{application_id}/recovery/options", body: EmailRecoveryOptionsRequest.self,
                answer: RegistrationOptionsResponse.self)
        case .emailRecoveryVerify:
            .post(
                "/oidc/{application_id}/recovery/verify", body: EmailRecoveryVerifyRequest.self,
                answer: EmailRecoveredResponse.self)
        case .demoWebAuthnScript: .get("/demo/webauthn-json.js")
        case .updateUserProfile:
            .patch(
                "/api/umfa/users/{user_id}/profile", access: .apiKey, body: UserProfileRequest.self,
                answer: UserProfileResponse.self)
        case .oauthPushedAuthorizationRequest:
            .post(
                "/oidc/{application_id}/par", access: .oauthClient, errors: .oauth, status: 201,
                answer: PushedAuthorizationResponse.self)
        case .oauthUserinfoPost: .post("/oidc/{application_id}/userinfo", errors: .oauth, answer: UserinfoResponse.self)
        case .appleAppSiteAssociation: .get("/.well-known/apple-app-site-association")
        case .assetLinks: .get("/.well-known/assetlinks.json")
        case .relatedOrigins: .get("/.well-known/webauthn", rfcAnswer: true, answer: RelatedOriginsDocument.self)
        case .createInitialAccessToken:
            .post(
                "/api/admin/applications/{id}/initial-access-tokens", access: .adminToken, status: 201,
                body: InitialAccessTokenRequest.self, answer: InitialAccessTokenResponse.self)
        case .oauthRegisterClient:
            .post(
                "/oidc/{application_id}/register", errors: .oauth, status: 201, body: ClientRegistrationRequest.self,
                answer: ClientRegistrationResponse.self)
        case .oauthReadClientRegistration:
            .get("/oidc/{application_id}/register/{client_id}", errors: .oauth, answer: ClientRegistrationResponse.self)
        case .oauthUpdateClientRegistration:
            .put(
                "/oidc/{application_id}/register/{client_id}", errors: .oauth, body: ClientRegistrationRequest.self,
                answer: ClientRegistrationResponse.self)
        case .oauthDeleteClientRegistration:
            .delete("/oidc/{application_id}/register/{client_id}", errors: .oauth, status: 204)
        case .oauthAttestationChallenge:
            .post(
                "/oidc/{application_id}/attestation-challenge", errors: .oauth, status: 201,
                answer: AttestationChallengeResponse.self)
        case .listMyCredentials:
            .get("/api/umfa/me/credentials", access: .loginToken, answer: MyCredentialListResponse.self)
        case .renameMyCredential:
            .patch(
                "/api/umfa/me/credentials/{credential_id}", access: .loginToken, body: RenameCredentialRequest.self,
                answer: MyCredentialResponse.self)
        case .deleteMyCredential:
            .delete("/api/umfa/me/credentials/{credential_id}", access: .loginToken, answer: RemovedResponse.self)
        case .deleteMyAccount: .delete("/api/umfa/me", access: .loginToken, status: 204)
        case .sendMyEmailVerification:
            .post("/api/umfa/me/email/verification", access: .loginToken, answer: EmailVerificationResponse.self)
        case .verifyMyEmail:
            .post(
                "/api/umfa/me/email/verify", access: .loginToken, body: EmailVerifyRequest.self,
                answer: EmailVerificationResponse.self)
        case .createMyRecoveryCodes:
            .post("/api/umfa/me/recovery-codes", access: .loginToken, status: 201, answer: RecoveryCodesResponse.self)
        case .countMyRecoveryCodes:
            .get("/api/umfa/me/recovery-codes", access: .loginToken, answer: RecoveryCodeCountResponse.self)
        case .recoverAccount:
            .post("/api/umfa/recovery", body: RecoveryRequest.self, answer: EnrollmentTokenResponse.self)
        case .createUserRecoveryCodes:
            .post(
                "/api/umfa/users/{user_id}/recovery-codes", access: .apiKey, status: 201,
                body: UserRecoveryCodesRequest.self, answer: RecoveryCodesResponse.self)
        case .listAuditEvents: .get("/api/admin/audit-events", access: .adminToken, answer: AuditEventListResponse.self)
        case .listApplicationAuditEvents:
            .get("/api/umfa/audit-events", access: .apiKey, answer: AuditEventListResponse.self)
        case .listApplicationUsers:
            .get("/api/admin/applications/{id}/users", access: .adminToken, answer: AdminUserListResponse.self)
        case .listApplicationUserCredentials:
            .get(
                "/api/admin/applications/{id}/users/{user_id}/credentials", access: .adminToken,
                answer: CredentialListResponse.self)
        case .deleteApplicationUserCredential:
            .delete(
                "/api/admin/applications/{id}/users/{user_id}/credentials/{credential_id}", access: .adminToken,
                answer: RemovedResponse.self)
        case .deleteApplicationUser:
            .delete("/api/admin/applications/{id}/users/{user_id}", access: .adminToken, status: 204)
        case .createApplicationUserRecoveryCodes:
            .post(
                "/api/admin/applications/{id}/users/{user_id}/recovery-codes", access: .adminToken, status: 201,
                answer: RecoveryCodesResponse.self)
        case .listSigningKeys: .get("/api/admin/signing-keys", access: .adminToken, answer: SigningKeyListResponse.self)
        case .consolePage: .get("/admin")
        case .consoleStylesheet: .get("/admin/console.css")
        case .consoleScript: .get("/admin/console.js")
        case .consoleWebAuthnScript: .get("/admin/webauthn-json.js")
        case .consoleSession: .get("/admin/session", answer: ConsoleSessionResponse.self)
        case .consoleEnrollOptions:
            .post(
                "/admin/session/enroll-options", body: ConsoleEnrollOptionsRequest.self,
                answer: RegistrationOptionsResponse.self)
        case .consoleEnroll:
            .post("/admin/session/enroll", body: ConsoleEnrollRequest.self, answer: ConsoleSessionResponse.self)
        case .consoleSignInOptions: .post("/admin/session/options", answer: AuthenticationOptionsResponse.self)
        case .consoleSignIn:
            .post("/admin/session", body: ConsoleSignInRequest.self, answer: ConsoleSessionResponse.self)
        case .consoleSignOut: .delete("/admin/session", answer: RemovedResponse.self)
        case .listConsoleCredentials:
            .get("/api/admin/console/credentials", access: .adminToken, answer: ConsoleCredentialListResponse.self)
        case .deleteConsoleCredential:
            .delete(
                "/api/admin/console/credentials/{credential_id}", access: .adminToken,
                answer: ConsoleCredentialRemovedResponse.self)
        case .listConsoleSessions:
            .get("/api/admin/console/sessions", access: .adminToken, answer: ConsoleSessionListResponse.self)
        case .deleteConsoleSession:
            .delete("/api/admin/console/sessions/{session_id}", access: .adminToken, answer: RemovedResponse.self)
        case .outOfBandEnroll:
            .post(
                "/api/umfa/users/enroll", access: .apiKey, body: OutOfBandEnrollRequest.self,
                answer: OutOfBandEnrollResponse.self)
        case .createApproval:
            .post(
                "/api/umfa/approvals", access: .apiKey, status: 201, body: ApprovalRequest.self,
                answer: ApprovalResponse.self)
        case .transactionStatus: .post("/api/umfa/status", body: StatusRequest.self, answer: StatusResponse.self)
        case .dispatchRedeem:
            .post("/api/umfa/dispatch/redeem", body: DispatchRedeemRequest.self, answer: DispatchRedeemResponse.self)
        case .dispatchComplete:
            .post(
                "/api/umfa/dispatch/complete", body: DispatchCompleteRequest.self, answer: DispatchCompleteResponse.self
            )
        case .openAppLink: .get("/open")
        case .adminOutOfBandEnroll:
            .post(
                "/api/admin/applications/{id}/users/{user_id}/enroll", access: .adminToken,
                answer: OutOfBandEnrollResponse.self)
        case .pendingApprovals:
            .post(
                "/api/umfa/approvals/pending", access: .deviceProof, body: PendingApprovalsRequest.self,
                answer: PendingApprovalsResponse.self)
        case .approvalEvents: .get("/api/umfa/approvals/events", access: .deviceProof)
        case .updateDeviceInformation:
            .post(
                "/api/umfa/device-information", access: .deviceProof, body: DeviceInformationRequest.self,
                answer: DeviceInformationResponse.self)
        case .rotateWebhookSecret:
            .post(
                "/api/admin/applications/{id}/webhook-secret", access: .adminToken, answer: WebhookSecretResponse.self)
        case .flowStep: .get("/oidc/{application_id}/flow/{flow_id}", access: .flowToken, errors: .problem)
        case .flowSignIn:
            .post(
                "/oidc/{application_id}/flow/{flow_id}/sign-in", access: .flowToken, errors: .problem,
                body: FlowSubmission.self)
        case .flowSignInVerify:
            .post(
                "/oidc/{application_id}/flow/{flow_id}/sign-in/verify", access: .flowToken, errors: .problem,
                body: FlowSubmission.self)
        case .flowCreateAccount:
            .post(
                "/oidc/{application_id}/flow/{flow_id}/create-account", access: .flowToken, errors: .problem,
                body: FlowSubmission.self)
        case .flowCreateAccountVerify:
            .post(
                "/oidc/{application_id}/flow/{flow_id}/create-account/verify", access: .flowToken, errors: .problem,
                body: FlowSubmission.self)
        case .flowConsent:
            .post(
                "/oidc/{application_id}/flow/{flow_id}/consent", access: .flowToken, errors: .problem,
                body: FlowSubmission.self)
        case .flowStartApproval:
            .post(
                "/oidc/{application_id}/flow/{flow_id}/approval", access: .flowToken, errors: .problem,
                body: FlowSubmission.self)
        case .flowPollApproval:
            .get("/oidc/{application_id}/flow/{flow_id}/approval", access: .flowToken, errors: .problem)
        }
    }
}
