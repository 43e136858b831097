import Foundation
import UMFAContract
import UMFAEncoding
import UMFAJOSE
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// The API-driven flow (docs/contract.md §6): the hosted pages' journey as JSON steps for a native app.
///
/// A flow is an ``Interaction`` bound to the DPoP key of its flow token (``flowKey``), and every
/// ceremony is ``InteractionService``'s, so the hosted pages and the flow share each rule: the
/// WebAuthn checks, the abuse limits, the sign-up setting, consent and the code.
struct APIFlowService: Sendable {
    let interactions: InteractionService
    let grants: OAuthGrants
    let outOfBand: OutOfBandService
    let store: any OAuthClientStore & OutOfBandStore
    let abuse: AbuseGuard
    /// Opens the login token an approval issued.
    let sealed: SealedSecrets
    let now: @Sendable () -> Date
    let issuer: OAuthIssuer
    /// The JWK thumbprint of the flow token's DPoP key.
    let flowKey: String

    private func steps(_ handle: String) -> FlowSteps { FlowSteps(base: Self.base(issuer, handle)) }

    /// `<issuer>/flow/<handle>`: where a flow's actions go.
    static func base(_ issuer: OAuthIssuer, _ handle: String) -> String { issuer.issuer + "/flow/" + handle }

    /// Starts a flow for a checked authorization request; the first step.
    func start(_ authorization: AuthorizationRequest) async throws -> FlowStep {
        if authorization.prompt.contains("none") {
            // OpenID Connect Core §3.1.2.6: a flow has no session to answer without a step.
            throw OAuthError(code: .loginRequired, "No one is signed in")
        }
        let handle =
            try await grants
            .create(
                .interaction, Interaction(request: authorization, flowKey: flowKey), lifetime: Interaction.lifetime)
        return startStep(handle, authorization)
    }

    /// `GET <flow>`: the step the flow is at (the start, consent, or the authorization response).
    func current(_ handle: String, caller: Caller) async throws -> FlowStep {
        var state = try await interactions.interaction(handle)
        guard let signIn = state.payload.signIn else {
            // Back at the start: an approval still waiting is cancelled, so no device can answer it.
            if let pending = state.payload.approvalTransaction {
                try await outOfBand.cancel(transactionID: pending, caller: caller)
                state.payload.approvalTransaction = nil
                try await save(handle, state)
            }
            return startStep(handle, state.payload.request)
        }
        return try await translate(interactions.proceed(handle, state, signIn: signIn, caller: caller), handle)
    }

    /// `POST <flow>/sign-in`: the passkey ceremony for `username` (or any discoverable passkey).
    func signIn(_ handle: String, _ form: FlowSubmission, caller: Caller) async throws -> FlowStep {
        let options = try await interactions.signInOptions(
            InteractionSignInOptionsRequest(interaction: handle, login: try await userID(form)), caller: caller)
        return try steps(handle).passkeySignIn(options)
    }

    /// `POST <flow>/sign-in/verify`.
    func signInVerify(_ handle: String, _ form: FlowSubmission, caller: Caller) async throws -> FlowStep {
        let credential = try Self.credential(form, as: AuthenticationResponseJSON.self)
        let step = try await interactions.signInVerify(
            InteractionSignInVerifyRequest(interaction: handle, credential: credential), caller: caller)
        return try translate(step, handle)
    }

    /// `POST <flow>/create-account`: checks the profile, field by field; the passkey ceremony.
    func createAccount(_ handle: String, _ form: FlowSubmission, caller: Caller) async throws -> FlowStep {
        guard let email = Self.optional(form.email) else {
            throw FlowProblem(
                .invalidInput, "Enter an email address", invalidFields: [.init(name: "email", reason: .missing)])
        }
        let request = InteractionCreateAccountRequest(
            interaction: handle, email: email, givenName: form.givenName, familyName: form.familyName,
            phoneNumber: form.phoneNumber, deviceName: form.deviceName)
        do {
            // The profile's own checks, each error carrying the field it concerns.
            _ = try InteractionService.account(request)
        } catch let error as ServiceError where error.code == .invalidRequest {
            throw Self.invalid(error.field ?? "email", error.message)
        }
        do {
            let options = try await interactions.createAccountOptions(request, caller: caller)
            return try steps(handle).passkeyRegistration(options)
        } catch let error as ServiceError where error.code == .conflict {
            throw Self.invalid("email", error.message)
        }
    }

    private static func invalid(_ field: String, _ message: String) -> FlowProblem {
        FlowProblem(.invalidInput, message, invalidFields: [.init(name: field, reason: .invalidValue, detail: message)])
    }

    /// The user a form's `username` names, checked as a user id (the field named when it is not one).
    private func userID(_ form: FlowSubmission) async throws -> String? {
        do {
            return try await interactions.userID(forLogin: Self.optional(form.username))
        } catch let error as ServiceError where error.code == .invalidRequest {
            throw Self.invalid("username", error.message)
        }
    }

    /// `POST <flow>/create-account/verify`.
    func createAccountVerify(_ handle: String, _ form: FlowSubmission, caller: Caller) async throws -> FlowStep {
        let credential = try Self.credential(form, as: RegistrationResponseJSON.self)
        let step = try await interactions.createAccountVerify(
            InteractionCreateAccountVerifyRequest(interaction: handle, credential: credential), caller: caller)
        return try translate(step, handle)
    }

    /// `POST <flow>/consent` with `decision` `allow` or `deny`.
    func consent(_ handle: String, _ form: FlowSubmission, caller: Caller) async throws -> FlowStep {
        guard let decision = form.decision, decision == "allow" || decision == "deny" else {
            throw FlowProblem(
                .invalidInput, "decision must be allow or deny",
                invalidFields: [.init(name: "decision", reason: form.decision == nil ? .missing : .invalidValue)])
        }
        let step = try await interactions.consent(
            InteractionConsentRequest(interaction: handle, allow: decision == "allow"), caller: caller)
        return try translate(step, handle)
    }

    /// `POST <flow>/approval`: an out-of-band approval (docs/contract.md §7) for `username`, or for any
    /// user's device without one; the polling step with its QR code, app link and the number the
    /// approving device must be given (number matching is always on here: whoever holds a flow
    /// token may ask, so the person approving must see this screen).
    ///
    /// An unknown user gets an approval like anyone else's, which no device can answer, so the
    /// step never tells who has an account. Each request counts against the caller's ceremony
    /// limit, and a new one cancels the flow's previous approval.
    func startApproval(_ handle: String, _ form: FlowSubmission, caller: Caller) async throws -> FlowStep {
        var state = try await interactions.interaction(handle)
        let userID = try await userID(form)
        try abuse.countOptionsRequest(caller)
        let outOfBand = outOfBand
        if let previous = state.payload.approvalTransaction {
            try await outOfBand.cancel(transactionID: previous, caller: caller)
        }
        let client = try await store.oauthClient(
            applicationID: issuer.application.id, clientID: state.payload.request.clientID)
        let approval = try await outOfBand.startApproval(
            application: issuer.application, userID: userID,
            message: "Sign in to \(client?.name ?? issuer.application.name)", ttl: OutOfBandService.approvalTTL,
            numberMatching: true, caller: caller)
        state.payload.approvalTransaction = approval.transactionId
        try await save(handle, state)
        return try steps(handle).approvalPending(approval)
    }

    /// `GET <flow>/approval`: the approval's state; once approved, the flow is signed in as the
    /// user whose passkey approved.
    func pollApproval(_ handle: String, caller: Caller) async throws -> FlowStep {
        var state = try await interactions.interaction(handle)
        if state.payload.signIn != nil { return steps(handle).approvalDone() }
        guard let id = state.payload.approvalTransaction,
            let transaction = try await store.outOfBandTransaction(id: id),
            transaction.applicationID == issuer.application.id
        else {
            throw FlowProblem(.invalidInput, "Start an approval on another device first")
        }
        let status = OutOfBandService.currentStatus(transaction, now: now())
        switch status {
        case .pending:
            return steps(handle).approvalWaiting()
        case .succeeded:
            let approved = try ApprovedSignIn(transaction, sealed: sealed)
            state.payload.signIn = interactions.newSignIn(
                userID: approved.userID, amr: approved.amr, level: approved.level, credentialID: approved.credentialID)
            state.payload.approvalTransaction = nil
            try await save(handle, state, subject: approved.userID)
            return steps(handle).approvalDone()
        case .denied:
            return steps(handle).approvalFailed("The approval was denied on the other device")
        default:
            return steps(handle).approvalFailed("The approval \(status.rawValue); start again")
        }
    }

    // MARK: Parts

    private func startStep(_ handle: String, _ authorization: AuthorizationRequest) -> FlowStep {
        let signup = issuer.application.signup == .enabled
        return steps(handle).start(
            signup: signup, createOnly: signup && authorization.prompt.contains("create"),
            loginHint: authorization.loginHint)
    }

    /// An interaction step as a flow step: consent, or the end of the authorization request.
    private func translate(_ step: InteractionService.Step, _ handle: String) throws -> FlowStep {
        switch step.response.next {
        case .consent:
            return steps(handle).consent(
                clientName: step.response.clientName, scopes: step.response.scopes ?? [],
                authorizationDetails: step.response.authorizationDetails)
        case .redirect:
            let parameters = AuthorizationFlow.responseParameters(step.response.redirectTo ?? "")
            if let error = parameters["error"] {
                throw FlowProblem(
                    .errorAuthorizationResponse, "The authorization request ended with an error", error: error,
                    errorDescription: parameters["error_description"])
            }
            guard let code = parameters["code"] else {
                throw ServiceError(.internalFailure, "An authorization response without a code")
            }
            return FlowSteps.authorizationResponse(code: code, state: parameters["state"], issuer: issuer.issuer)
        case .verifyEmail:
            // The hosted pages' step only: the flow's apps verify through /api/umfa/me/email/verify.
            throw ServiceError(.internalFailure, "A hosted-page step in the API-driven flow")
        }
    }

    private func save(_ handle: String, _ state: OAuthGrants.Found<Interaction>, subject: String? = nil) async throws {
        guard
            try await grants
                .update(
                    .interaction, handle, state.payload, subject: subject ?? state.record.subject,
                    expiresAt: state.record.expiresAt)
        else { throw InteractionService.expiredError }
    }

    /// What the login token the approval issued says of the sign-in: `amr` and `acr` (the
    /// passkey's, as for every sign-in).
    private static func optional(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }

    /// The `credential` field as a WebAuthn response.
    private static func credential<Response: Decodable>(_ form: FlowSubmission, as type: Response.Type) throws
        -> Response
    {
        guard let json = form.credential else {
            throw FlowProblem(
                .invalidInput, "Send the passkey's response as credential",
                invalidFields: [.init(name: "credential", reason: .missing)])
        }
        do {
            return try OutOfBandService.decode(json, as: type)
        } catch let error as ServiceError {
            throw FlowProblem(
                .invalidInput, error.message,
                invalidFields: [.init(name: "credential", reason: .invalidValue, detail: error.message)])
        }
    }
}
