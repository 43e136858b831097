import UMFAContract
import UMFAEncoding

/// The kind of a step of the API-driven flow (docs/api-flow.md §3), Curity's `RepresentationType`.
public enum RepresentationType: String, Sendable, CaseIterable {
    /// `authentication-step`.
    case authenticationStep = "authentication-step"
    /// `registration-step`.
    case registrationStep = "registration-step"
    /// `polling-step`.
    case pollingStep = "polling-step"
    /// `redirection-step`.
    case redirectionStep = "redirection-step"
    /// `user-consent-step`.
    case userConsentStep = "user-consent-step"
    /// `continue-same-step`.
    case continueSameStep = "continue-same-step"
    /// `oauth-authorization-response`.
    case oauthAuthorizationResponse = "oauth-authorization-response"

    init(_ type: FlowStep.StepType) {
        self = RepresentationType(rawValue: type.rawValue) ?? .authenticationStep
    }
}

/// A step of the API-driven flow, Curity's `HaapiRepresentation`: cast it to its step type
/// (``InteractiveFormStep``, ``PollingStep``, ``OAuthAuthorizationResponseStep``, …) or read
/// ``step`` for an enum of them. Every step carries its typed actions, links and messages, and
/// the wire form (``flowStep``) it was read from.
public protocol HaapiRepresentation: Sendable {
    /// The step as the server sent it (docs/contract.md §6).
    var flowStep: FlowStep { get }
}

extension HaapiRepresentation {
    /// What kind of step this is.
    public var type: RepresentationType { RepresentationType(flowStep.type) }
    /// What the client may do next, typed by template.
    public var actions: [any Action] { flowStep.actions.map(typedAction) }
    /// Where the client may go (`restart`, …).
    public var links: [Link] { flowStep.links.map(Link.init) }
    /// Text for the person.
    public var messages: [UserMessage] { flowStep.messages.map(UserMessage.init) }
    /// What view a client shows (`umfa:choose`, `umfa:consent`, …).
    public var metadata: FlowMetadata? { flowStep.metadata }

    /// The first action of `kind`, searched in the step's actions and in their selectors.
    public func action(kind: String) -> (any Action)? { flowStep.action(kind).map(typedAction) }

    /// The form of the first action of `kind`, when it is a form.
    public func formAction(kind: String) -> FormAction? { action(kind: kind) as? FormAction }

    /// The step as an enum of its types.
    public var step: HaapiStep { HaapiStep(self) }
}

/// A link of a step, Curity's `Link`.
public struct Link: Sendable, Equatable {
    /// Where it goes.
    public var href: String
    /// What it is (`restart`, …).
    public var rel: String
    /// Text for a button.
    public var title: String?

    /// Creates a link.
    public init(href: String, rel: String, title: String? = nil) {
        self.href = href
        self.rel = rel
        self.title = title
    }

    init(_ link: FlowLink) {
        href = link.href
        rel = link.rel
        title = link.title
    }

    /// The wire form.
    public var flowLink: FlowLink { FlowLink(href: href, rel: rel, title: title) }
}

/// A message of a step or a problem, Curity's `UserMessage`.
public struct UserMessage: Sendable, Equatable {
    /// The text.
    public var text: String
    /// How to show it (`info`, `error`, …).
    public var classList: [String]

    init(_ message: FlowMessage) {
        text = message.text
        classList = message.classList
    }
}

/// The steps as one enum, beside the casts Curity's documentation shows: a `switch` the
/// compiler checks for completeness.
public enum HaapiStep: Sendable {
    /// A choice of ways to authenticate.
    case authenticatorSelector(AuthenticatorSelectorStep)
    /// Forms to fill.
    case interactiveForm(InteractiveFormStep)
    /// An operation the client performs (a passkey ceremony).
    case clientOperation(any ClientOperationStep)
    /// Waiting for something else (another device).
    case polling(PollingStep)
    /// The same step again, to continue.
    case continueSame(ContinueSameStep)
    /// A redirection to follow.
    case redirection(RedirectionStep)
    /// Consent for the client's scopes.
    case userConsent(UserConsentStep)
    /// A step of no other type.
    case generic(GenericRepresentationStep)
    /// The end: the authorization response.
    case oauthAuthorizationResponse(OAuthAuthorizationResponseStep)

    init(_ representation: any HaapiRepresentation) {
        switch representation {
        case let step as AuthenticatorSelectorStep: self = .authenticatorSelector(step)
        case let step as InteractiveFormStep: self = .interactiveForm(step)
        case let step as any ClientOperationStep: self = .clientOperation(step)
        case let step as PollingStep: self = .polling(step)
        case let step as ContinueSameStep: self = .continueSame(step)
        case let step as RedirectionStep: self = .redirection(step)
        case let step as UserConsentStep: self = .userConsent(step)
        case let step as OAuthAuthorizationResponseStep: self = .oauthAuthorizationResponse(step)
        default: self = .generic(GenericRepresentationStep(flowStep: representation.flowStep))
        }
    }
}
