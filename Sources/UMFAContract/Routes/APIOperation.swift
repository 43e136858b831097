import Foundation

/// Every operation of the HTTP API v1, one case each. Each is declared once, in
/// ``declaration`` (method, path, access, error shape, success status, request and answer
/// types): the server builds its router, its access checks and its error rendering from it, the
/// SDK and the command-line tool name their paths by it, and `openapi.yaml` is generated from it
/// and its prose in `APIOperation+Documentation.swift` (docs/development.md, "The HTTP contract,
/// written once").
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
    case deleteUser
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
    case healthReady
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
    case deleteMyAccount
    case sendMyEmailVerification
    case verifyMyEmail
    case requestEmailRecovery
    case emailRecoveryPage
    case emailRecoveryOptions
    case emailRecoveryVerify
    case hostedRecoveryScript
    case accountPage
    case interactionVerifyEmail
    case hostedAccountScript
    case oauthDeviceAuthorization
    case oauthBackchannelAuthentication
    case devicePage
    case deviceCodeLookup
    case deviceDecision
    case hostedDeviceScript
    case hostedPageScript
    case createMyRecoveryCodes
    case countMyRecoveryCodes
    case recoverAccount
    case createUserRecoveryCodes
    case listAuditEvents
    case listApplicationAuditEvents
    case listApplicationUsers
    case listApplicationUserCredentials
    case deleteApplicationUserCredential
    case deleteApplicationUser
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
    case updateDeviceInformation
    case rotateWebhookSecret
    case flowStep
    case flowSignIn
    case flowSignInVerify
    case flowCreateAccount
    case flowCreateAccountVerify
    case flowConsent
    case flowStartApproval
    case flowPollApproval
    case relatedOrigins

    /// Who may call an operation.
    public enum Access: Sendable, Hashable {
        /// Anyone; device-facing routes prove themselves through the ceremony.
        case open
        /// `Authorization: Bearer <application API key>`.
        case apiKey
        /// `Authorization: Bearer <admin token>`, or a console session.
        case adminToken
        /// `Authorization: Bearer <login token>` of the user (self-service routes).
        case loginToken
        /// OAuth client authentication (RFC 6749 §2.3: HTTP Basic or form members).
        case oauthClient
        /// `Authorization: UMFA-Device <device proof>`, signed with a device key.
        case deviceProof
        /// `Authorization: DPoP <flow token>` with a DPoP proof of its key (RFC 9449).
        case flowToken
    }

    /// The shape an operation's failures take.
    public enum ErrorShape: Sendable, Hashable {
        /// UMFA's JSON error: `{"error": <message>, "trace_id": …}`.
        case umfa
        /// RFC 6749 §5.2: `{"error": <code>, "error_description": …}`, with UMFA's `trace_id`.
        case oauth
        /// RFC 9457 problem details (`application/problem+json`), the API-driven flow's shape.
        case problem
        /// An HTML page for a person in a browser (authorization and logout).
        case page
    }

    /// The HTTP method, upper case.
    public var method: String { declaration.method }
    /// The path as OpenAPI writes it, parameters in braces (`/api/umfa/users/{user_id}/credentials`).
    public var path: String { declaration.path }
    /// Who may call it.
    public var access: Access { declaration.access }
    /// The shape its failures take.
    public var errorShape: ErrorShape { declaration.errorShape }
    /// Whether the operation is an OAuth / OpenID Connect endpoint, answering in its RFC's
    /// shapes (metadata, JWKS, form bodies in; RFC 6749 §5.2 errors, with UMFA's `trace_id`
    /// added, where ``errorShape`` is ``ErrorShape/oauth``).
    public var answersInOAuthShape: Bool { declaration.answersInRFCShape }
    /// The JSON request body, or `nil` for an operation without one.
    public var requestBody: (any ContractBody.Type)? { declaration.requestBody }
    /// The JSON body of the success answer, or `nil` when it is not a UMFA JSON object (JWKS,
    /// Prometheus text, YAML, HTML pages, flow steps).
    public var responseBody: (any ContractBody.Type)? { declaration.responseBody }
    /// The success status: 201 for what creates a resource, 202 for a request whose outcome the
    /// answer does not tell, 204 for an empty answer, else 200.
    public var successStatus: Int { declaration.successStatus }

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
