import Foundation

/// Every operation of the HTTP API v1, one case each: the table the server builds its router
/// from, the SDK and the command-line tool name their paths by, and the contract test checks
/// against `openapi.yaml` (method, path, operation id, request and response fields).
public enum APIOperation: String, CaseIterable, Sendable {
    case registrationOptions
    case registrationVerify
    case authenticationOptions
    case authenticationVerify
    case unenroll
    case validateToken
    case createEnrollmentToken
    case listUserCredentials
    case deleteUserCredential
    case createApplication
    case listApplications
    case getApplication
    case updateApplication
    case createAPIKey
    case listAPIKeys
    case deleteAPIKey
    case rotateSigningKey
    case jwks
    case health
    case metrics
    case openAPI
    case demoPage
    case demoStylesheet
    case demoScript
    case createOAuthClient
    case listOAuthClients
    case getOAuthClient
    case updateOAuthClient
    case deleteOAuthClient
    case rotateOAuthClientSecret
    case oidcDiscovery
    case oauthServerMetadata
    case oidcJWKS
    case oauthToken
    case oauthIntrospect
    case oauthRevoke
    case oauthAuthorize
    case oauthUserinfo
    case oauthLogout
    case oauthLogoutPost
    case interactionSignInOptions
    case interactionSignInVerify
    case interactionCreateAccountOptions
    case interactionCreateAccountVerify
    case interactionConsent
    case hostedStylesheet
    case hostedScript
    case hostedWebAuthnScript
    case demoWebAuthnScript
    case updateUserProfile
    case oauthPushedAuthorizationRequest
    case oauthUserinfoPost
    case appleAppSiteAssociation
    case assetLinks
    case createInitialAccessToken
    case oauthRegisterClient
    case oauthReadClientRegistration
    case oauthUpdateClientRegistration
    case oauthDeleteClientRegistration
    case oauthAttestationChallenge
    case listMyCredentials
    case renameMyCredential
    case deleteMyCredential
    case createMyRecoveryCodes
    case countMyRecoveryCodes
    case recoverAccount
    case createUserRecoveryCodes
    case listAuditEvents
    case listApplicationAuditEvents
    case listApplicationUsers
    case listApplicationUserCredentials
    case deleteApplicationUserCredential
    case createApplicationUserRecoveryCodes
    case listSigningKeys
    case consolePage
    case consoleStylesheet
    case consoleScript
    case consoleWebAuthnScript
    case consoleSession
    case consoleEnrollOptions
    case consoleEnroll
    case consoleSignInOptions
    case consoleSignIn
    case consoleSignOut
    case listConsoleCredentials
    case deleteConsoleCredential
    case listConsoleSessions
    case deleteConsoleSession
    case outOfBandEnroll
    case createApproval
    case transactionStatus
    case dispatchRedeem
    case dispatchComplete
    case openAppLink
    case adminOutOfBandEnroll
    case pendingApprovals
    case approvalEvents
    case rotateWebhookSecret
    case flowStep
    case flowSignIn
    case flowSignInVerify
    case flowCreateAccount
    case flowCreateAccountVerify
    case flowConsent
    case flowStartApproval
    case flowPollApproval

    /// Who may call an operation.
    public enum Access: Sendable {
        /// Anyone; device-facing routes prove themselves through the ceremony.
        case open
        /// `Authorization: Bearer <application API key>`.
        case apiKey
        /// `Authorization: Bearer <admin token>`.
        case adminToken
        /// `Authorization: Bearer <login token>` of the user (demo routes).
        case loginToken
        /// OAuth client authentication (RFC 6749 §2.3: HTTP Basic or form members).
        case oauthClient
        /// `Authorization: UMFA-Device <device proof>` (DESIGN.md §7), signed with a device key.
        case deviceProof
        /// `Authorization: DPoP <flow token>` with a DPoP proof of its key (DESIGN.md §6).
        case flowToken
    }

    /// The HTTP method, upper case.
    public var method: String {
        switch self {
        case .registrationOptions, .registrationVerify, .authenticationOptions, .authenticationVerify, .unenroll,
            .validateToken, .createEnrollmentToken, .createApplication, .createAPIKey, .rotateSigningKey,
            .createOAuthClient, .rotateOAuthClientSecret, .oauthToken, .oauthIntrospect,
            .oauthRevoke, .interactionSignInOptions, .interactionSignInVerify, .interactionCreateAccountOptions,
            .interactionCreateAccountVerify, .interactionConsent, .oauthPushedAuthorizationRequest,
            .oauthUserinfoPost, .oauthLogoutPost, .createInitialAccessToken, .oauthRegisterClient,
            .oauthAttestationChallenge,
            .createMyRecoveryCodes, .recoverAccount, .createUserRecoveryCodes, .createApplicationUserRecoveryCodes,
            .consoleEnrollOptions, .consoleEnroll, .consoleSignInOptions, .consoleSignIn, .outOfBandEnroll,
            .createApproval,
            .transactionStatus, .dispatchRedeem, .dispatchComplete, .adminOutOfBandEnroll, .pendingApprovals,
            .rotateWebhookSecret, .flowSignIn, .flowSignInVerify, .flowCreateAccount, .flowCreateAccountVerify,
            .flowConsent, .flowStartApproval:
            "POST"
        case .deleteUserCredential, .deleteAPIKey, .deleteOAuthClient,
            .oauthDeleteClientRegistration, .deleteMyCredential, .deleteApplicationUserCredential, .consoleSignOut,
            .deleteConsoleCredential, .deleteConsoleSession:
            "DELETE"
        case .oauthUpdateClientRegistration: "PUT"
        case .updateApplication, .updateOAuthClient, .updateUserProfile, .renameMyCredential: "PATCH"
        case .listUserCredentials, .listApplications, .getApplication, .listAPIKeys, .jwks, .health, .metrics,
            .openAPI, .demoPage, .demoStylesheet, .demoScript, .listOAuthClients, .getOAuthClient,
            .oidcDiscovery, .oauthServerMetadata, .oidcJWKS, .oauthAuthorize, .oauthUserinfo, .oauthLogout,
            .hostedStylesheet, .hostedScript, .hostedWebAuthnScript, .demoWebAuthnScript, .appleAppSiteAssociation,
            .assetLinks, .oauthReadClientRegistration, .listMyCredentials, .countMyRecoveryCodes, .listAuditEvents,
            .listApplicationAuditEvents, .listApplicationUsers, .listApplicationUserCredentials, .listSigningKeys,
            .consolePage, .consoleStylesheet, .consoleScript, .consoleWebAuthnScript, .consoleSession, .openAppLink,
            .approvalEvents, .flowStep, .flowPollApproval, .listConsoleCredentials, .listConsoleSessions:
            "GET"
        }
    }

    /// The path as OpenAPI writes it, parameters in braces (`/api/umfa/users/{user_id}/credentials`).
    public var path: String {
        switch self {
        case .registrationOptions: "/api/umfa/registration/options"
        case .registrationVerify: "/api/umfa/registration/verify"
        case .authenticationOptions: "/api/umfa/authentication/options"
        case .authenticationVerify: "/api/umfa/authentication/verify"
        case .unenroll: "/api/umfa/unenroll"
        case .validateToken: "/api/umfa/validate-token"
        case .createEnrollmentToken: "/api/umfa/enrollment-tokens"
        case .listUserCredentials: "/api/umfa/users/{user_id}/credentials"
        case .deleteUserCredential: "/api/umfa/users/{user_id}/credentials/{credential_id}"
        case .createApplication, .listApplications: "/api/admin/applications"
        case .getApplication, .updateApplication: "/api/admin/applications/{id}"
        case .createAPIKey, .listAPIKeys: "/api/admin/applications/{id}/api-keys"
        case .deleteAPIKey: "/api/admin/applications/{id}/api-keys/{key_id}"
        case .rotateSigningKey: "/api/admin/signing-keys"
        case .jwks: "/.well-known/jwks.json"
        case .health: "/health"
        case .metrics: "/metrics"
        case .openAPI: "/openapi.yaml"
        case .demoPage: "/"
        case .demoStylesheet: "/demo/demo.css"
        case .demoScript: "/demo/demo.js"
        case .createOAuthClient, .listOAuthClients: "/api/admin/applications/{id}/oauth-clients"
        case .getOAuthClient, .updateOAuthClient, .deleteOAuthClient:
            "/api/admin/applications/{id}/oauth-clients/{client_id}"
        case .rotateOAuthClientSecret: "/api/admin/applications/{id}/oauth-clients/{client_id}/secret"
        case .oidcDiscovery: "/oidc/{application_id}/.well-known/openid-configuration"
        case .oauthServerMetadata: "/.well-known/oauth-authorization-server/oidc/{application_id}"
        case .oidcJWKS: "/oidc/{application_id}/jwks"
        case .oauthToken: "/oidc/{application_id}/token"
        case .oauthIntrospect: "/oidc/{application_id}/introspect"
        case .oauthRevoke: "/oidc/{application_id}/revoke"
        case .oauthAuthorize: "/oidc/{application_id}/authorize"
        case .oauthUserinfo, .oauthUserinfoPost: "/oidc/{application_id}/userinfo"
        case .oauthLogout, .oauthLogoutPost: "/oidc/{application_id}/logout"
        case .interactionSignInOptions: "/oidc/{application_id}/interaction/sign-in/options"
        case .interactionSignInVerify: "/oidc/{application_id}/interaction/sign-in/verify"
        case .interactionCreateAccountOptions: "/oidc/{application_id}/interaction/create-account/options"
        case .interactionCreateAccountVerify: "/oidc/{application_id}/interaction/create-account/verify"
        case .interactionConsent: "/oidc/{application_id}/interaction/consent"
        case .hostedStylesheet: "/hosted/hosted.css"
        case .hostedScript: "/hosted/hosted.js"
        case .hostedWebAuthnScript: "/hosted/webauthn-json.js"
        case .demoWebAuthnScript: "/demo/webauthn-json.js"
        case .updateUserProfile: "/api/umfa/users/{user_id}/profile"
        case .oauthPushedAuthorizationRequest: "/oidc/{application_id}/par"
        case .appleAppSiteAssociation: "/.well-known/apple-app-site-association"
        case .assetLinks: "/.well-known/assetlinks.json"
        case .createInitialAccessToken: "/api/admin/applications/{id}/initial-access-tokens"
        case .oauthRegisterClient: "/oidc/{application_id}/register"
        case .oauthReadClientRegistration, .oauthUpdateClientRegistration, .oauthDeleteClientRegistration:
            "/oidc/{application_id}/register/{client_id}"
        case .oauthAttestationChallenge: "/oidc/{application_id}/attestation-challenge"
        case .listMyCredentials: "/api/umfa/me/credentials"
        case .renameMyCredential, .deleteMyCredential: "/api/umfa/me/credentials/{credential_id}"
        case .createMyRecoveryCodes, .countMyRecoveryCodes: "/api/umfa/me/recovery-codes"
        case .recoverAccount: "/api/umfa/recovery"
        case .createUserRecoveryCodes: "/api/umfa/users/{user_id}/recovery-codes"
        case .listAuditEvents: "/api/admin/audit-events"
        case .listApplicationAuditEvents: "/api/umfa/audit-events"
        case .listApplicationUsers: "/api/admin/applications/{id}/users"
        case .listApplicationUserCredentials: "/api/admin/applications/{id}/users/{user_id}/credentials"
        case .deleteApplicationUserCredential:
            "/api/admin/applications/{id}/users/{user_id}/credentials/{credential_id}"
        case .createApplicationUserRecoveryCodes: "/api/admin/applications/{id}/users/{user_id}/recovery-codes"
        case .listSigningKeys: "/api/admin/signing-keys"
        case .consolePage: "/admin"
        case .consoleStylesheet: "/admin/console.css"
        case .consoleScript: "/admin/console.js"
        case .consoleWebAuthnScript: "/admin/webauthn-json.js"
        case .consoleSession, .consoleSignIn, .consoleSignOut: "/admin/session"
        case .consoleEnrollOptions: "/admin/session/enroll-options"
        case .consoleEnroll: "/admin/session/enroll"
        case .consoleSignInOptions: "/admin/session/options"
        case .listConsoleCredentials: "/api/admin/console/credentials"
        case .deleteConsoleCredential: "/api/admin/console/credentials/{credential_id}"
        case .listConsoleSessions: "/api/admin/console/sessions"
        case .deleteConsoleSession: "/api/admin/console/sessions/{session_id}"
        case .outOfBandEnroll: "/api/umfa/users/enroll"
        case .createApproval: "/api/umfa/approvals"
        case .transactionStatus: "/api/umfa/status"
        case .dispatchRedeem: "/api/umfa/dispatch/redeem"
        case .dispatchComplete: "/api/umfa/dispatch/complete"
        case .openAppLink: "/open"
        case .adminOutOfBandEnroll: "/api/admin/applications/{id}/users/{user_id}/enroll"
        case .pendingApprovals: "/api/umfa/approvals/pending"
        case .approvalEvents: "/api/umfa/approvals/events"
        case .rotateWebhookSecret: "/api/admin/applications/{id}/webhook-secret"
        case .flowStep: "/oidc/{application_id}/flow/{flow_id}"
        case .flowSignIn: "/oidc/{application_id}/flow/{flow_id}/sign-in"
        case .flowSignInVerify: "/oidc/{application_id}/flow/{flow_id}/sign-in/verify"
        case .flowCreateAccount: "/oidc/{application_id}/flow/{flow_id}/create-account"
        case .flowCreateAccountVerify: "/oidc/{application_id}/flow/{flow_id}/create-account/verify"
        case .flowConsent: "/oidc/{application_id}/flow/{flow_id}/consent"
        case .flowStartApproval, .flowPollApproval: "/oidc/{application_id}/flow/{flow_id}/approval"
        }
    }

    /// Who may call it.
    public var access: Access {
        switch self {
        case .validateToken, .createEnrollmentToken, .listUserCredentials, .deleteUserCredential, .updateUserProfile,
            .createUserRecoveryCodes, .listApplicationAuditEvents, .outOfBandEnroll, .createApproval:
            .apiKey
        case .createApplication, .listApplications, .getApplication, .updateApplication, .createAPIKey, .listAPIKeys,
            .deleteAPIKey, .rotateSigningKey, .createOAuthClient, .listOAuthClients, .getOAuthClient,
            .updateOAuthClient,
            .deleteOAuthClient, .rotateOAuthClientSecret, .createInitialAccessToken, .listAuditEvents,
            .listApplicationUsers, .listApplicationUserCredentials,
            .deleteApplicationUserCredential, .createApplicationUserRecoveryCodes, .listSigningKeys,
            .adminOutOfBandEnroll, .rotateWebhookSecret, .listConsoleCredentials, .deleteConsoleCredential,
            .listConsoleSessions, .deleteConsoleSession:
            .adminToken
        case .pendingApprovals, .approvalEvents: .deviceProof
        case .flowStep, .flowSignIn, .flowSignInVerify, .flowCreateAccount, .flowCreateAccountVerify, .flowConsent,
            .flowStartApproval, .flowPollApproval:
            .flowToken
        case .oauthToken, .oauthIntrospect, .oauthRevoke, .oauthPushedAuthorizationRequest: .oauthClient
        case .listMyCredentials, .renameMyCredential,
            .deleteMyCredential, .createMyRecoveryCodes, .countMyRecoveryCodes:
            .loginToken
        default: .open
        }
    }

    /// Whether the operation is an OAuth / OpenID Connect endpoint, answering in its RFC's
    /// shapes (form bodies in; RFC 6749 §5.2 errors, with UMFA's `trace_id` added).
    public var answersInOAuthShape: Bool {
        switch self {
        case .oidcDiscovery, .oauthServerMetadata, .oidcJWKS, .oauthToken, .oauthIntrospect, .oauthRevoke,
            .oauthUserinfo, .oauthUserinfoPost, .oauthPushedAuthorizationRequest, .oauthRegisterClient,
            .oauthReadClientRegistration, .oauthUpdateClientRegistration, .oauthDeleteClientRegistration,
            .oauthAttestationChallenge:
            true
        default: false
        }
    }

    /// The JSON request body, or `nil` for an operation without one.
    public var requestBody: (any ContractBody.Type)? {
        switch self {
        case .registrationOptions: RegistrationOptionsRequest.self
        case .registrationVerify: RegistrationVerifyRequest.self
        case .authenticationOptions: AuthenticationOptionsRequest.self
        case .authenticationVerify: AuthenticationVerifyRequest.self
        case .unenroll: UnenrollRequest.self
        case .validateToken: ValidateTokenRequest.self
        case .createEnrollmentToken: EnrollmentTokenRequest.self
        case .createApplication: CreateApplicationRequest.self
        case .updateApplication: ApplicationSettingsRequest.self
        case .createOAuthClient, .updateOAuthClient: OAuthClientRequest.self
        case .interactionSignInOptions: InteractionSignInOptionsRequest.self
        case .interactionSignInVerify: InteractionSignInVerifyRequest.self
        case .interactionCreateAccountOptions: InteractionCreateAccountRequest.self
        case .interactionCreateAccountVerify: InteractionCreateAccountVerifyRequest.self
        case .interactionConsent: InteractionConsentRequest.self
        case .updateUserProfile: UserProfileRequest.self
        case .createInitialAccessToken: InitialAccessTokenRequest.self
        case .oauthRegisterClient, .oauthUpdateClientRegistration: ClientRegistrationRequest.self
        case .renameMyCredential: RenameCredentialRequest.self
        case .recoverAccount: RecoveryRequest.self
        case .createUserRecoveryCodes: UserRecoveryCodesRequest.self
        case .consoleEnrollOptions: ConsoleEnrollOptionsRequest.self
        case .consoleEnroll: ConsoleEnrollRequest.self
        case .consoleSignIn: ConsoleSignInRequest.self
        case .outOfBandEnroll: OutOfBandEnrollRequest.self
        case .createApproval: ApprovalRequest.self
        case .transactionStatus: StatusRequest.self
        case .dispatchRedeem: DispatchRedeemRequest.self
        case .dispatchComplete: DispatchCompleteRequest.self
        case .pendingApprovals: PendingApprovalsRequest.self
        case .flowSignIn, .flowSignInVerify, .flowCreateAccount, .flowCreateAccountVerify, .flowConsent,
            .flowStartApproval:
            FlowSubmission.self
        default: nil
        }
    }

    /// The JSON body of the success answer, or `nil` when it is not a UMFA JSON object (JWKS,
    /// Prometheus text, YAML, the demo page).
    public var responseBody: (any ContractBody.Type)? {
        switch self {
        case .registrationOptions: RegistrationOptionsResponse.self
        case .authenticationOptions: AuthenticationOptionsResponse.self
        case .registrationVerify, .authenticationVerify: CeremonyResponse.self
        case .unenroll: UnenrollResponse.self
        case .validateToken: ValidateTokenResponse.self
        case .createEnrollmentToken: EnrollmentTokenResponse.self
        case .listUserCredentials: CredentialListResponse.self
        case .deleteUserCredential, .deleteAPIKey: RemovedResponse.self
        case .createApplication, .getApplication, .updateApplication: ApplicationResponse.self
        case .listApplications: ApplicationListResponse.self
        case .createAPIKey: APIKeyCreatedResponse.self
        case .listAPIKeys: APIKeyListResponse.self
        case .rotateSigningKey: SigningKeyRotatedResponse.self
        case .health: HealthResponse.self
        case .createOAuthClient, .getOAuthClient, .updateOAuthClient, .rotateOAuthClientSecret:
            OAuthClientResponse.self
        case .listOAuthClients: OAuthClientListResponse.self
        case .deleteOAuthClient: RemovedResponse.self
        case .oidcDiscovery, .oauthServerMetadata: AuthorizationServerMetadata.self
        case .oauthToken: OAuthTokenResponse.self
        case .oauthIntrospect: IntrospectionResponse.self
        case .oauthUserinfo, .oauthUserinfoPost: UserinfoResponse.self
        case .oauthPushedAuthorizationRequest: PushedAuthorizationResponse.self
        case .interactionSignInOptions: AuthenticationOptionsResponse.self
        case .interactionCreateAccountOptions: RegistrationOptionsResponse.self
        case .interactionSignInVerify, .interactionCreateAccountVerify, .interactionConsent:
            InteractionStepResponse.self
        case .updateUserProfile: UserProfileResponse.self
        case .createInitialAccessToken: InitialAccessTokenResponse.self
        case .oauthRegisterClient, .oauthReadClientRegistration, .oauthUpdateClientRegistration:
            ClientRegistrationResponse.self
        case .oauthAttestationChallenge: AttestationChallengeResponse.self
        case .listMyCredentials: MyCredentialListResponse.self
        case .renameMyCredential: MyCredentialResponse.self
        case .deleteMyCredential: RemovedResponse.self
        case .createMyRecoveryCodes, .createUserRecoveryCodes: RecoveryCodesResponse.self
        case .countMyRecoveryCodes: RecoveryCodeCountResponse.self
        case .recoverAccount: EnrollmentTokenResponse.self
        case .listAuditEvents, .listApplicationAuditEvents: AuditEventListResponse.self
        case .listApplicationUsers: AdminUserListResponse.self
        case .listApplicationUserCredentials: CredentialListResponse.self
        case .deleteApplicationUserCredential, .consoleSignOut: RemovedResponse.self
        case .createApplicationUserRecoveryCodes: RecoveryCodesResponse.self
        case .listSigningKeys: SigningKeyListResponse.self
        case .consoleSession, .consoleEnroll, .consoleSignIn: ConsoleSessionResponse.self
        case .consoleEnrollOptions: RegistrationOptionsResponse.self
        case .consoleSignInOptions: AuthenticationOptionsResponse.self
        case .listConsoleCredentials: ConsoleCredentialListResponse.self
        case .deleteConsoleCredential: ConsoleCredentialRemovedResponse.self
        case .listConsoleSessions: ConsoleSessionListResponse.self
        case .deleteConsoleSession: RemovedResponse.self
        case .consolePage, .consoleStylesheet, .consoleScript, .consoleWebAuthnScript, .openAppLink: nil
        case .outOfBandEnroll, .adminOutOfBandEnroll: OutOfBandEnrollResponse.self
        case .createApproval: ApprovalResponse.self
        case .transactionStatus: StatusResponse.self
        case .dispatchRedeem: DispatchRedeemResponse.self
        case .dispatchComplete: DispatchCompleteResponse.self
        case .pendingApprovals: PendingApprovalsResponse.self
        case .rotateWebhookSecret: WebhookSecretResponse.self
        case .approvalEvents, .flowStep, .flowSignIn, .flowSignInVerify, .flowCreateAccount, .flowCreateAccountVerify,
            .flowConsent, .flowStartApproval, .flowPollApproval:
            nil
        case .oidcJWKS, .oauthDeleteClientRegistration, .oauthRevoke, .jwks, .metrics, .openAPI, .demoPage,
            .demoStylesheet, .demoScript,
            .oauthAuthorize, .oauthLogout, .oauthLogoutPost, .hostedStylesheet, .hostedScript, .hostedWebAuthnScript,
            .demoWebAuthnScript, .appleAppSiteAssociation, .assetLinks:
            nil
        }
    }

    /// The success status: 201 for what creates a resource, else 200.
    public var successStatus: Int {
        switch self {
        case .createEnrollmentToken, .createApplication, .createAPIKey, .rotateSigningKey, .createOAuthClient,
            .oauthPushedAuthorizationRequest, .createInitialAccessToken, .oauthRegisterClient,
            .oauthAttestationChallenge, .createMyRecoveryCodes, .createUserRecoveryCodes,
            .createApplicationUserRecoveryCodes, .createApproval:
            201
        case .oauthDeleteClientRegistration: 204
        default: 200
        }
    }

    /// The path with its `{name}` parameters filled in, percent-encoded.
    public func path(_ parameters: [String: String]) -> String {
        var result = path
        for (name, value) in parameters {
            let encoded = value.addingPercentEncoding(withAllowedCharacters: Self.pathSegmentCharacters) ?? value
            result = result.replacingOccurrences(of: "{\(name)}", with: encoded)
        }
        return result
    }

    private static let pathSegmentCharacters: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/?#%")
        return set
    }()
}
