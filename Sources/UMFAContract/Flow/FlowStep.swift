import UMFAEncoding

/// One step of the API-driven flow (docs/contract.md §6), media type ``mediaType``: what the client
/// shows, the actions it may take, and the links it may follow.
public struct FlowStep: Codable, Sendable, Equatable {
    /// `application/vnd.auth+json`.
    public static let mediaType = "application/vnd.auth+json"

    /// What kind of step this is.
    public enum StepType: String, Codable, Sendable, CaseIterable {
        case authentication = "authentication-step"
        case registration = "registration-step"
        case userConsent = "user-consent-step"
        case polling = "polling-step"
        case redirection = "redirection-step"
        case continueSameStep = "continue-same-step"
        case authorizationResponse = "oauth-authorization-response"
    }

    /// What kind of step this is.
    public var type: StepType
    /// What the client may do next.
    public var actions: [FlowAction]
    /// Where the client may go.
    public var links: [FlowLink]
    /// Text for the person.
    public var messages: [FlowMessage]
    /// The step's data: a polling step's `status`, `qrCode`, `appLinkUri`; the authorization
    /// response's `code`, `state`, `iss`; the consent step's `clientName`, `scopes`.
    public var properties: [String: JSONValue]
    /// What view a client shows.
    public var metadata: FlowMetadata?

    /// Creates a step.
    public init(
        type: StepType, actions: [FlowAction] = [], links: [FlowLink] = [], messages: [FlowMessage] = [],
        properties: [String: JSONValue] = [:], metadata: FlowMetadata? = nil
    ) {
        self.type = type
        self.actions = actions
        self.links = links
        self.messages = messages
        self.properties = properties
        self.metadata = metadata
    }

    /// Decodes a step; absent lists and properties read as empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(StepType.self, forKey: .type)
        actions = try container.decodeIfPresent([FlowAction].self, forKey: .actions) ?? []
        links = try container.decodeIfPresent([FlowLink].self, forKey: .links) ?? []
        messages = try container.decodeIfPresent([FlowMessage].self, forKey: .messages) ?? []
        properties = try container.decodeIfPresent([String: JSONValue].self, forKey: .properties) ?? [:]
        metadata = try container.decodeIfPresent(FlowMetadata.self, forKey: .metadata)
    }

    /// The first action of `kind`, searched in the step's actions and in their selectors.
    public func action(_ kind: String) -> FlowAction? {
        for action in actions {
            if action.kind == kind { return action }
            if case .selector(let selector) = action.model,
                let found = selector.options.first(where: { $0.kind == kind })
            {
                return found
            }
        }
        return nil
    }

    /// A polling step's `status`.
    public var pollingStatus: String? { properties["status"]?.stringValue }
}

/// A link of a step.
public struct FlowLink: Codable, Sendable, Equatable {
    /// Where it goes.
    public var href: String
    /// What it is (`restart`, `self`, …).
    public var rel: String
    /// Text for a button.
    public var title: String?

    /// Creates a link.
    public init(href: String, rel: String, title: String? = nil) {
        self.href = href
        self.rel = rel
        self.title = title
    }
}

/// A message of a step.
public struct FlowMessage: Codable, Sendable, Equatable {
    /// The text.
    public var text: String
    /// How to show it (`info`, `error`, …).
    public var classList: [String]

    /// Creates a message.
    public init(text: String, classList: [String] = ["info"]) {
        self.text = text
        self.classList = classList
    }
}

/// A step's `metadata`.
public struct FlowMetadata: Codable, Sendable, Equatable {
    /// The view a client shows (`umfa:choose`, `umfa:consent`, …).
    public var viewName: String

    /// Creates the metadata.
    public init(viewName: String) { self.viewName = viewName }
}
