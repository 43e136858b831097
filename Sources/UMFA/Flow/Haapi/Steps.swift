import UMFAContract
import UMFAEncoding

/// Forms to fill (an `authentication-step` or `registration-step` whose actions are forms),
/// Curity's `InteractiveFormStep`: UMFA's start step (`umfa:choose`: `passkey-sign-in`,
/// `create-account`, `approve-on-another-device`) and the `prompt=create` step.
public struct InteractiveFormStep: HaapiRepresentation {
    /// The step as the server sent it.
    public let flowStep: FlowStep
}

/// A choice of ways to authenticate (a step whose first action is a selector), Curity's
/// `AuthenticatorSelectorStep`. UMFA's server offers its choices as forms of an
/// ``InteractiveFormStep``; a server that sends a selector gets this type.
public struct AuthenticatorSelectorStep: HaapiRepresentation {
    /// The step as the server sent it.
    public let flowStep: FlowStep

    /// One way to authenticate, Curity's `AuthenticatorSelectorStep.AuthenticatorOption`.
    public struct AuthenticatorOption: Sendable {
        /// Text for the person.
        public let label: String?
        /// What it is (the action's `kind`).
        public let type: String
        /// What choosing it does.
        public let action: any Action
    }

    /// The selector's title.
    public var title: String? { flowStep.actions.first?.title }
    /// The choices.
    public var authenticators: [AuthenticatorOption] {
        guard let selector = actions.first as? SelectorAction else { return [] }
        return selector.model.options.map { AuthenticatorOption(label: $0.title, type: $0.kind, action: $0) }
    }
}

/// A step whose action is an operation the client performs, Curity's `ClientOperationStep`:
/// ``WebAuthnAuthenticationClientOperationStep``, ``WebAuthnRegistrationClientOperationStep``,
/// ``ExternalBrowserClientOperationStep`` or ``GenericClientOperationStep``.
public protocol ClientOperationStep: HaapiRepresentation {}

extension ClientOperationStep {
    /// The operation.
    public var actionModel: any ClientOperationActionModel {
        for action in actions { if let operation = action as? ClientOperationAction { return operation.model } }
        return GenericClientOperationActionModel(
            operation: FlowClientOperation(name: "", arguments: [:], continueActions: [], errorActions: []))
    }
}

/// A passkey sign-in to perform (`umfa:passkey-sign-in`).
public struct WebAuthnAuthenticationClientOperationStep: ClientOperationStep {
    /// The step as the server sent it.
    public let flowStep: FlowStep
}

/// A passkey registration to perform (`umfa:passkey-registration`).
public struct WebAuthnRegistrationClientOperationStep: ClientOperationStep {
    /// The step as the server sent it.
    public let flowStep: FlowStep
}

/// A flow to run in an external browser.
public struct ExternalBrowserClientOperationStep: ClientOperationStep {
    /// The step as the server sent it.
    public let flowStep: FlowStep
}

/// Any other client operation.
public struct GenericClientOperationStep: ClientOperationStep {
    /// The step as the server sent it.
    public let flowStep: FlowStep
}

/// Where a polling step stands, Curity's `PollingStatus`.
public enum PollingStatus: String, Sendable {
    /// Still waiting: poll again after ``PollingProperties/interval`` seconds.
    case pending
    /// Approved: continue.
    case done
    /// Denied, expired or cancelled: start again.
    case failed
}

/// A polling step's data (docs/api-flow.md §3, `umfa:approval`), Curity's `PollingProperties`.
public struct PollingProperties: Sendable {
    /// Where the approval stands.
    public let status: PollingStatus
    /// The QR code image object (docs/contract.md §7), on the first answer.
    public let qrCode: JSONValue?
    /// The app link the other device opens, on the first answer.
    public let appLinkUri: String?
    /// The number the person types on the approving device.
    public let matchingNumber: String?
    /// Seconds between polls.
    public let interval: Int?
}

/// Waiting for another device, Curity's `PollingStep`.
public struct PollingStep: HaapiRepresentation {
    /// The step as the server sent it.
    public let flowStep: FlowStep

    /// The step's data.
    public var properties: PollingProperties {
        let values = flowStep.properties
        return PollingProperties(
            status: values["status"]?.stringValue.flatMap(PollingStatus.init(rawValue:)) ?? .pending,
            qrCode: values["qrCode"], appLinkUri: values["appLinkUri"]?.stringValue,
            matchingNumber: values["matchingNumber"]?.stringValue,
            interval: Self.integer(values["interval"]))
    }
    private static func integer(_ value: JSONValue?) -> Int? {
        if case .number(let number)? = value, number >= 0, number < 86_400 { return Int(number) }
        return nil
    }

    /// What to do next: `poll` while pending, `continue` when done, `restart` when failed.
    public var mainAction: FormAction? {
        actions.lazy.compactMap { $0 as? FormAction }.first { $0.kind != "cancel" }
    }
    /// `cancel`, while pending.
    public var cancelAction: FormAction? { formAction(kind: "cancel") }
}

/// Consent for the client's scopes, Curity's `UserConsentStep`.
public struct UserConsentStep: HaapiRepresentation {
    /// The step as the server sent it.
    public let flowStep: FlowStep

    /// The client's name.
    public var clientName: String? { flowStep.properties["clientName"]?.stringValue }
    /// The scopes the client asks for.
    public var scopes: [String] {
        guard case .array(let listed)? = flowStep.properties["scopes"] else { return [] }
        return listed.compactMap(\.stringValue)
    }
    /// `consent-allow`.
    public var allowAction: FormAction? { formAction(kind: "consent-allow") }
    /// `consent-deny`.
    public var denyAction: FormAction? { formAction(kind: "consent-deny") }
}

/// The same step again, to continue (`continue-same-step`), Curity's `ContinueSameStep`.
public struct ContinueSameStep: HaapiRepresentation {
    /// The step as the server sent it.
    public let flowStep: FlowStep
}

/// A redirection to follow (`redirection-step`), Curity's `RedirectionStep`.
public struct RedirectionStep: HaapiRepresentation {
    /// The step as the server sent it.
    public let flowStep: FlowStep

    /// The form that follows the redirection.
    public var redirectAction: FormAction? { actions.lazy.compactMap { $0 as? FormAction }.first }
}

/// A step of no other type, Curity's `GenericRepresentationStep`.
public struct GenericRepresentationStep: HaapiRepresentation {
    /// The step as the server sent it.
    public let flowStep: FlowStep
}

/// The authorization response's parameters (RFC 6749 §4.1.2, RFC 9207), Curity's
/// `OAuthAuthorizationResponseProperties`.
public struct OAuthAuthorizationResponseProperties: Sendable, Equatable {
    /// The code to exchange with ``OAuthTokenManager/fetchAccessToken(with:dpop:)``.
    public let code: String?
    /// The request's `state`, already checked against the flow's.
    public let state: String?
    /// The issuer (RFC 9207), already checked.
    public let iss: String?
}

/// The end of the flow, Curity's `OAuthAuthorizationResponseStep`. The ``FlowDriver`` hands it
/// out only once its `state` and `iss` are the flow's own; any token manager sharing the
/// flow's storage location (or given the flow's ``FlowDriver/dpop``) can then redeem the code.
public struct OAuthAuthorizationResponseStep: HaapiRepresentation {
    /// The step as the server sent it.
    public let flowStep: FlowStep

    /// The code, state and issuer.
    public var oauthAuthorizationResponseProperties: OAuthAuthorizationResponseProperties {
        OAuthAuthorizationResponseProperties(
            code: flowStep.properties["code"]?.stringValue, state: flowStep.properties["state"]?.stringValue,
            iss: flowStep.properties["iss"]?.stringValue)
    }
}

/// The typed step for `step`: by its type, then by its first action's template (Curity's
/// `HaapiModel.StepFactory`).
func typedStep(_ step: FlowStep) -> any HaapiRepresentation {
    switch step.type {
    case .polling: return PollingStep(flowStep: step)
    case .userConsent: return UserConsentStep(flowStep: step)
    case .redirection: return RedirectionStep(flowStep: step)
    case .continueSameStep: return ContinueSameStep(flowStep: step)
    case .authorizationResponse: return OAuthAuthorizationResponseStep(flowStep: step)
    case .authentication, .registration:
        guard let first = step.actions.first else { return GenericRepresentationStep(flowStep: step) }
        switch first.model {
        case .selector: return AuthenticatorSelectorStep(flowStep: step)
        case .form: return InteractiveFormStep(flowStep: step)
        case .clientOperation(let operation):
            switch operation.name {
            case "webauthn-authentication": return WebAuthnAuthenticationClientOperationStep(flowStep: step)
            case "webauthn-registration": return WebAuthnRegistrationClientOperationStep(flowStep: step)
            case "external-browser-flow": return ExternalBrowserClientOperationStep(flowStep: step)
            default: return GenericClientOperationStep(flowStep: step)
            }
        }
    }
}
