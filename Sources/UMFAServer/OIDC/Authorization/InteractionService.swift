import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// What the hosted pages call while a person signs in for an authorization request: passkey
/// sign-in (by email, by user id, or discoverable), account creation with a profile and a first
/// passkey, and consent. The ceremonies are the device routes' own (``AuthenticationService``,
/// ``RegistrationService``), so every WebAuthn rule and abuse limit holds here too.
struct InteractionService: Sendable {
    let flow: AuthorizationFlow
    let sessions: SSOSessions
    let authentication: AuthenticationService
    let registration: RegistrationService
    /// Mails a new account's email verification code, and checks it.
    let emailCodes: EmailCodes
    let audit: AuditLog
    let store: any CredentialStore & UserProfileStore & OAuthClientStore
    let abuse: AbuseGuard
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer
    /// The DPoP key of the API-driven flow being served; `nil` for the hosted pages. An
    /// interaction is found only by the side it belongs to.
    var flowKey: String? = nil

    private var grants: OAuthGrants { flow.grants }

    /// The answer and, after a sign-in, the SSO session cookie to set.
    struct Step: Sendable {
        var response: InteractionStepResponse
        var setCookie: String?
    }

    static let expired = "This sign-in page has expired. Go back to the application and start again."

    /// 401 for an interaction that is gone: ``ServiceError/Reason/sessionExpired``, which the
    /// API-driven flow answers as its `session_expired` problem.
    static var expiredError: ServiceError { ServiceError.unauthenticated(expired, reason: .sessionExpired) }

    /// Options for a sign-in: `login` is an email address or a user id; an unknown one gets the
    /// same pseudo credentials as on the device route, so the page never tells who has an account.
    func signInOptions(_ request: InteractionSignInOptionsRequest, caller: Caller) async throws
        -> AuthenticationOptionsResponse
    {
        let state = try await interaction(request.interaction)
        return
            try await authentication
            .options(
                application: ceremonyApplication(for: state.payload.request),
                userID: try await userID(forLogin: request.login),
                caller: caller)
    }

    /// The application as the request's ceremonies see it: user verification required when the
    /// request asks for a level that needs it (step-up, docs/oidc-provider.md), so the
    /// authenticator asks for the PIN or biometric instead of skipping it.
    func ceremonyApplication(for request: AuthorizationRequest) -> ApplicationRecord {
        var application = issuer.application
        if let wanted = request.authentication?.wanted, wanted >= .passkey { application.userVerification = .required }
        return application
    }

    /// The user a login names: the owner of an email address, else the login as a user id (an
    /// unknown one stays as given, so answers never tell who has an account).
    func userID(forLogin login: String?) async throws -> String? {
        guard let login else { return nil }
        try FieldRules.checkUserID(login)
        if ASCIISplit.contains(login, "@"),
            let owner = try await store.userID(applicationID: issuer.application.id, email: login)
        {
            return owner
        }
        return login
    }

    /// Checks the passkey, starts the SSO session, and sends the person on.
    func signInVerify(_ request: InteractionSignInVerifyRequest, caller: Caller) async throws -> Step {
        var state = try await interaction(request.interaction)
        let outcome =
            try await authentication
            .signIn(application: issuer.application, userID: nil, credential: request.credential, caller: caller)
        let signIn = newSignIn(outcome.credential, authenticatorData: outcome.verified.authenticatorData)
        state.payload.signIn = signIn
        return try await proceed(request.interaction, state, signIn: signIn, caller: caller)
    }

    /// Checks the profile, reserves a new user id and answers creation options for its passkey.
    /// Stores no user: the account is kept with the interaction until its passkey verifies.
    func createAccountOptions(_ request: InteractionCreateAccountRequest, caller: Caller) async throws
        -> RegistrationOptionsResponse
    {
        var state = try await interaction(request.interaction)
        // Anyone may ask, and each answer stores a challenge: counted like every options route.
        try abuse.countOptionsRequest(caller)
        guard issuer.application.signup == .enabled else {
            throw ServiceError.forbidden("This application does not accept new accounts")
        }
        var account = try Self.account(request)
        if try await store.userID(applicationID: issuer.application.id, email: account.email) != nil {
            throw ServiceError.conflict(EnrollmentGrant.emailTaken)
        }
        let userHandle = Secrets.randomBytes(32)
        account.userHandle = Base64URL.encode(userHandle)
        state.payload.pendingAccount = account
        guard
            try await grants.update(
                .interaction, request.interaction, state.payload, subject: nil, expiresAt: state.record.expiresAt)
        else { throw Self.expiredError }
        return try await registration.options(
            application: ceremonyApplication(for: state.payload.request), userID: account.userID,
            userName: account.email,
            displayName: account.displayName, existing: [], grant: EnrollmentGrant.Grant(kind: .signUp),
            caller: caller, newUserHandle: userHandle)
    }

    /// Checks the new passkey and stores it with its user and profile, all or nothing (the
    /// email address stays unique: 409 when another sign-up took it meanwhile); mails the code
    /// that verifies the address (when the server sends mail); starts the SSO session.
    func createAccountVerify(_ request: InteractionCreateAccountVerifyRequest, caller: Caller) async throws -> Step {
        var state = try await interaction(request.interaction)
        guard let account = state.payload.pendingAccount, let userHandle = account.userHandleBytes else {
            throw ServiceError.invalid("Start account creation with create-account/options first")
        }
        let registered = try await registration.register(
            RegistrationVerifyRequest(
                applicationID: issuer.application.id.uuidString, userID: account.userID,
                credential: request.credential, deviceName: account.deviceName),
            application: issuer.application, caller: caller,
            account: account.newAccount(
                applicationID: issuer.application.id, userHandle: userHandle, now: now()))
        let signIn = newSignIn(registered.credential, authenticatorData: registered.authenticatorData)
        state.payload.pendingAccount = nil
        state.payload.signIn = signIn
        let mailed = await emailCodes.startAfterSignUp(issuer.application, userID: account.userID)
        // On the hosted pages the person is asked for the mailed code first (or skips it); the
        // API-driven flow's apps verify through /api/umfa/me/email/verify.
        if mailed, flowKey == nil {
            guard
                try await grants.update(
                    .interaction, request.interaction, state.payload, subject: account.userID,
                    expiresAt: state.record.expiresAt)
            else { throw Self.expiredError }
            return Step(response: InteractionStepResponse(traceID: caller.traceID, next: .verifyEmail))
        }
        return try await proceed(request.interaction, state, signIn: signIn, caller: caller)
    }

    /// After a hosted sign-up: the code mailed to the new address (none skips the step), then on
    /// as after any sign-in. A wrong code spends an attempt and leaves the interaction as it was.
    func verifyEmail(_ request: InteractionVerifyEmailRequest, caller: Caller) async throws -> Step {
        let state = try await interaction(request.interaction)
        guard flowKey == nil, let signIn = state.payload.signIn else {
            throw ServiceError.invalid("Create the account before verifying its address")
        }
        if let code = request.code {
            _ = try await emailCodes.check(
                code.trimmingCharacters(in: .whitespaces), application: issuer.application, userID: signIn.userID,
                audit: audit, caller: caller)
        }
        return try await proceed(request.interaction, state, signIn: signIn, caller: caller)
    }

    /// The person's answer to the consent screen.
    func consent(_ request: InteractionConsentRequest, caller: Caller) async throws -> Step {
        let state = try await interaction(request.interaction)
        guard let signIn = state.payload.signIn else {
            throw ServiceError.invalid("Sign in before answering the consent screen")
        }
        let authorization = state.payload.request
        guard try await grants.consume(.interaction, request.interaction, as: Interaction.self).found != nil else {
            throw Self.expiredError
        }
        guard request.allow else {
            let location = flow.errorRedirect(
                OAuthError(code: .accessDenied, "The user did not allow the request"),
                to: authorization.redirectURI, state: authorization.state)
            return Step(
                response: InteractionStepResponse(traceID: caller.traceID, next: .redirect, redirectTo: location))
        }
        guard
            let client = try await store.oauthClient(
                applicationID: issuer.application.id, clientID: authorization.clientID)
        else { throw ServiceError.forbidden("The application that asked for this sign-in was removed") }
        try await flow.recordConsent(authorization, userID: signIn.userID)
        let location = try await flow.issueCode(authorization, client: client, signIn: signIn)
        return Step(response: InteractionStepResponse(traceID: caller.traceID, next: .redirect, redirectTo: location))
    }

    /// After a sign-in: a session, then the code or the consent screen.
    func proceed(
        _ handle: String, _ state: OAuthGrants.Found<Interaction>, signIn: SignIn, caller: Caller
    ) async throws -> Step {
        // An API-driven flow has no browser to keep a session cookie.
        let cookie = flowKey == nil ? try await sessions.start(signIn) : nil
        let authorization = state.payload.request
        // A sign-in below the required authentication context ends here, before any consent.
        if let refusal = flow.unmet(authorization, signIn: signIn) {
            guard try await grants.consume(.interaction, handle, as: Interaction.self).found != nil else {
                throw Self.expiredError
            }
            return Step(
                response: InteractionStepResponse(traceID: caller.traceID, next: .redirect, redirectTo: refusal),
                setCookie: cookie)
        }
        guard
            let client = try await store.oauthClient(
                applicationID: issuer.application.id, clientID: authorization.clientID)
        else { throw ServiceError.forbidden("The application that asked for this sign-in was removed") }
        if try await flow.hasConsent(authorization, client: client, userID: signIn.userID) {
            guard try await grants.consume(.interaction, handle, as: Interaction.self).found != nil else {
                throw Self.expiredError
            }
            let location = try await flow.issueCode(authorization, client: client, signIn: signIn)
            return Step(
                response: InteractionStepResponse(traceID: caller.traceID, next: .redirect, redirectTo: location),
                setCookie: cookie)
        }
        guard
            try await grants.update(
                .interaction, handle, state.payload, subject: signIn.userID, expiresAt: state.record.expiresAt)
        else { throw Self.expiredError }
        return Step(
            response: InteractionStepResponse(
                traceID: caller.traceID, next: .consent, clientName: client.name, scopes: authorization.scopes,
                authorizationDetails: authorization.authorizationDetails?.canonicalText),
            setCookie: cookie)
    }

    /// A sign-in now by `userID` with the passkey `credentialID`, in a new session, that reached
    /// `level` by the methods `amr`.
    func newSignIn(userID: String, amr: [String], level: AuthenticationLevel, credentialID: [UInt8]) -> SignIn {
        SignIn(
            userID: userID, authTime: Int(now().timeIntervalSince1970), amr: amr,
            sessionID: Base64URL.encode(Secrets.randomBytes(16)), credentialID: Base64URL.encode(credentialID),
            acr: level.rawValue)
    }

    /// A sign-in now with `credential`, whose ceremony answered `authenticatorData`.
    func newSignIn(_ credential: StoredCredential, authenticatorData: AuthenticatorData) -> SignIn {
        newSignIn(
            userID: credential.userID, amr: LoginTokens.amr(for: authenticatorData),
            level: .reached(authenticatorData, credential: credential), credentialID: credential.credentialID)
    }

    /// The live interaction of `handle`; 401 with words a person understands when it is gone.
    func interaction(_ handle: String) async throws -> OAuthGrants.Found<Interaction> {
        guard handle.utf8.count <= 64, let found = try await grants.live(.interaction, handle, as: Interaction.self),
            Self.sameKey(found.payload.flowKey, flowKey)
        else { throw Self.expiredError }
        return found
    }

    /// Whether an interaction's flow key is the caller's (both `nil` on the hosted pages), by bytes.
    private static func sameKey(_ stored: String?, _ given: String?) -> Bool {
        switch (stored, given) {
        case (nil, nil): true
        case (let stored?, let given?): stored.utf8.elementsEqual(given.utf8)
        default: false
        }
    }

    /// The profile of a new account, checked (OpenID Connect Core §5.1 claims).
    static func account(_ request: InteractionCreateAccountRequest) throws -> Interaction.PendingAccount {
        let email = request.email.trimmingCharacters(in: .whitespaces)
        try UserProfileService.checkEmail(email)
        func optional(_ value: String?, _ field: String, _ limit: Int) throws -> String? {
            guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            guard value.utf8.count <= limit, !value.utf8.contains(0) else {
                throw ServiceError.invalid("\(field) must be at most \(limit) bytes of text", field: field)
            }
            return value
        }
        return Interaction.PendingAccount(
            userID: UUID().uuidString.lowercased(), email: email,
            givenName: try optional(request.givenName, "given_name", 256),
            familyName: try optional(request.familyName, "family_name", 256),
            phoneNumber: try optional(request.phoneNumber, "phone_number", 32),
            deviceName: try optional(request.deviceName, "device_name", 128))
    }
}
