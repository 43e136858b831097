import Foundation
import UMFAContract
import UMFAEncoding

/// The steps of UMFA's journey through the API-driven flow (docs/contract.md §6, docs/api-flow.md):
/// each action's `href` is under the flow's own URL, so a client only ever follows what it is
/// given.
struct FlowSteps: Sendable {
    /// `<issuer>/flow/<flow id>`.
    let base: String

    /// The names of the actions (`kind`), which clients choose by.
    enum Kind {
        static let passkeySignIn = "passkey-sign-in"
        static let createAccount = "create-account"
        static let approveOnAnotherDevice = "approve-on-another-device"
        static let poll = "poll"
        static let cancel = "cancel"
        static let `continue` = "continue"
        static let restart = "restart"
        static let consentAllow = "consent-allow"
        static let consentDeny = "consent-deny"
        static let webAuthnRegistration = "webauthn-registration"
        static let webAuthnAuthentication = "webauthn-authentication"
    }

    /// Seconds a client waits between polls.
    static let pollInterval = 2

    /// The start: sign in with a passkey, create an account (when the application takes new
    /// accounts), or approve on another device; with `prompt=create`, account creation alone.
    /// `loginHint` (an email address or user id) fills the username fields, and an email the
    /// new account's.
    func start(signup: Bool, createOnly: Bool, loginHint: String? = nil) -> FlowStep {
        let createAccount = createAccount(email: loginHint.flatMap { ASCIISplit.contains($0, "@") ? $0 : nil })
        if createOnly {
            return FlowStep(
                type: .registration, actions: [createAccount], links: [restartLink],
                metadata: FlowMetadata(viewName: "umfa:create-account"))
        }
        let signIn = form(
            Kind.passkeySignIn, "Sign in with a passkey", href: base + "/sign-in", actionTitle: "Sign in",
            fields: [
                FlowField(type: "username", name: "username", label: "Email or user id (optional)", value: loginHint)
            ])
        let approval = form(
            Kind.approveOnAnotherDevice, "Approve on another device", href: base + "/approval",
            actionTitle: "Show the QR code",
            fields: [
                FlowField(type: "username", name: "username", label: "Email or user id (optional)", value: loginHint)
            ])
        return FlowStep(
            type: .authentication, actions: signup ? [signIn, createAccount, approval] : [signIn, approval],
            links: [restartLink], metadata: FlowMetadata(viewName: "umfa:choose"))
    }

    /// The passkey ceremony of a sign-in.
    func passkeySignIn(_ options: AuthenticationOptionsResponse) throws -> FlowStep {
        try ceremony(
            .authentication, Kind.webAuthnAuthentication, "Use your passkey",
            argument: "credentialRequestOptions", options: options.publicKey, verify: "/sign-in/verify",
            viewName: "umfa:passkey-sign-in")
    }

    /// The passkey ceremony of a new account.
    func passkeyRegistration(_ options: RegistrationOptionsResponse) throws -> FlowStep {
        try ceremony(
            .registration, Kind.webAuthnRegistration, "Create your passkey",
            argument: "credentialCreationOptions", options: options.publicKey, verify: "/create-account/verify",
            viewName: "umfa:passkey-registration")
    }

    /// A WebAuthn client operation with `options` as `argument.publicKey`, continued by a form
    /// to `verify` that carries the response as `credential`.
    private func ceremony(
        _ type: FlowStep.StepType, _ name: String, _ title: String, argument: String, options: some Encodable,
        verify: String, viewName: String
    ) throws -> FlowStep {
        let operation = FlowClientOperation(
            name: name, arguments: [argument: .object(["publicKey": try OutOfBandService.json(options)])],
            continueActions: [credentialForm(href: base + verify)], errorActions: [restart])
        return FlowStep(
            type: type, actions: [FlowAction(kind: name, title: title, model: .clientOperation(operation))],
            links: [restartLink], metadata: FlowMetadata(viewName: viewName))
    }

    /// Waiting for another device: the §7 QR code and app link, a poll and a cancel.
    func approvalPending(_ approval: ApprovalResponse) throws -> FlowStep {
        var properties: [String: JSONValue] = [
            "status": .string("pending"), "qrCode": try OutOfBandService.json(approval.qrCode),
            "appLinkUri": .string(approval.appLinkUri),
            "interval": .number(Double(Self.pollInterval)),
        ]
        if let number = approval.matchingNumber { properties["matchingNumber"] = .string(number) }
        return polling(
            properties, actions: [poll, form(Kind.cancel, "Cancel", href: base, method: "GET", actionTitle: "Cancel")],
            message: FlowMessage(
                text: "Scan the QR code with the device that has your passkey, or open the link there; "
                    + "enter the number shown here when it asks"))
    }

    /// Still waiting (a later poll): the same step without the QR code, which the client has.
    func approvalWaiting() -> FlowStep {
        polling(
            ["status": .string("pending"), "interval": .number(Double(Self.pollInterval))],
            actions: [poll, form(Kind.cancel, "Cancel", href: base, method: "GET", actionTitle: "Cancel")],
            message: FlowMessage(text: "Waiting for the other device"))
    }

    /// The other device approved.
    func approvalDone() -> FlowStep {
        polling(
            ["status": .string("done")],
            actions: [form(Kind.continue, "Continue", href: base, method: "GET", actionTitle: "Continue")],
            message: FlowMessage(text: "Approved"))
    }

    /// The approval ended without success.
    func approvalFailed(_ why: String) -> FlowStep {
        polling(
            ["status": .string("failed")], actions: [restart], message: FlowMessage(text: why, classList: ["error"]))
    }

    /// Consent for a client that is not first-party.
    func consent(clientName: String?, scopes: [String], authorizationDetails: String? = nil) -> FlowStep {
        func answer(_ kind: String, _ title: String, _ decision: String) -> FlowAction {
            form(
                kind, title, href: base + "/consent", actionTitle: title,
                fields: [FlowField(type: "hidden", name: "decision", value: decision, required: true)])
        }
        var properties: [String: JSONValue] = ["scopes": .array(scopes.map(JSONValue.string))]
        if let clientName { properties["clientName"] = .string(clientName) }
        var messages = [
            FlowMessage(text: "\(clientName ?? "The application") asks for: \(scopes.joined(separator: ", "))")
        ]
        // RFC 9396: what the person authorizes, in the canonical text the hosted page shows too.
        if let authorizationDetails {
            properties["authorizationDetails"] = .string(authorizationDetails)
            messages.append(FlowMessage(text: authorizationDetails))
        }
        return FlowStep(
            type: .userConsent,
            actions: [answer(Kind.consentAllow, "Allow", "allow"), answer(Kind.consentDeny, "Deny", "deny")],
            messages: messages,
            properties: properties, metadata: FlowMetadata(viewName: "umfa:consent"))
    }

    /// The end: the authorization response's parameters (RFC 6749 §4.1.2, RFC 9207 `iss`).
    static func authorizationResponse(code: String, state: String?, issuer: String) -> FlowStep {
        var properties: [String: JSONValue] = ["code": .string(code), "iss": .string(issuer)]
        if let state { properties["state"] = .string(state) }
        return FlowStep(type: .authorizationResponse, properties: properties)
    }

    // MARK: Parts

    private func createAccount(email: String?) -> FlowAction {
        form(
            Kind.createAccount, "Create an account", href: base + "/create-account", actionTitle: "Create account",
            fields: [
                FlowField(type: "text", name: "email", label: "Email", value: email, required: true),
                FlowField(type: "text", name: "given_name", label: "Given name"),
                FlowField(type: "text", name: "family_name", label: "Family name"),
                FlowField(type: "text", name: "phone_number", label: "Phone number"),
                FlowField(type: "text", name: "device_name", label: "Name of this passkey"),
            ])
    }

    private var poll: FlowAction { form(Kind.poll, "Check again", href: base + "/approval", method: "GET") }

    private var restart: FlowAction {
        form(Kind.restart, "Start again", href: base, method: "GET", actionTitle: "Start again")
    }

    private var restartLink: FlowLink { FlowLink(href: base, rel: Kind.restart, title: "Start again") }

    private func credentialForm(href: String) -> FlowAction {
        form(
            Kind.continue, "Continue", href: href,
            fields: [FlowField(type: "hidden", name: "credential", label: "The passkey's response", required: true)])
    }

    private func polling(_ properties: [String: JSONValue], actions: [FlowAction], message: FlowMessage) -> FlowStep {
        FlowStep(
            type: .polling, actions: actions, links: [restartLink], messages: [message],
            properties: properties, metadata: FlowMetadata(viewName: "umfa:approval"))
    }

    private func form(
        _ kind: String, _ title: String, href: String, method: String = "POST", actionTitle: String? = nil,
        fields: [FlowField] = []
    ) -> FlowAction {
        FlowAction(
            kind: kind, title: title,
            model: .form(
                FlowForm(href: href, method: method, type: "application/json", actionTitle: actionTitle, fields: fields)
            ))
    }
}
