import UMFAEncoding

/// An action of a flow step: a form to submit, a selector of actions, or an operation the
/// client performs (a WebAuthn ceremony) before it continues (docs/contract.md §6).
public struct FlowAction: Codable, Sendable, Equatable {
    /// How the action is presented.
    public enum Template: String, Codable, Sendable {
        case form
        case selector
        case clientOperation = "client-operation"
    }

    /// The action's model, by template.
    public enum Model: Sendable, Equatable {
        case form(FlowForm)
        case selector(FlowSelector)
        case clientOperation(FlowClientOperation)
    }

    /// What the action is (`passkey-sign-in`, `create-account`, `webauthn-registration`, …).
    public var kind: String
    /// Text for a button or heading.
    public var title: String?
    /// The form, selector or client operation.
    public var model: Model
    /// More data for the client.
    public var properties: [String: JSONValue]?

    /// Creates an action.
    public init(kind: String, title: String? = nil, model: Model, properties: [String: JSONValue]? = nil) {
        self.kind = kind
        self.title = title
        self.model = model
        self.properties = properties
    }

    /// The template the model implies.
    public var template: Template {
        switch model {
        case .form: .form
        case .selector: .selector
        case .clientOperation: .clientOperation
        }
    }

    /// The form, when the action is one.
    public var form: FlowForm? {
        if case .form(let form) = model { return form }
        return nil
    }

    /// The client operation, when the action is one.
    public var clientOperation: FlowClientOperation? {
        if case .clientOperation(let operation) = model { return operation }
        return nil
    }

    enum CodingKeys: String, CodingKey {
        case template, kind, title, model, properties
    }

    /// Decodes an action; its model by its template.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        properties = try container.decodeIfPresent([String: JSONValue].self, forKey: .properties)
        switch try container.decode(Template.self, forKey: .template) {
        case .form: model = .form(try container.decode(FlowForm.self, forKey: .model))
        case .selector: model = .selector(try container.decode(FlowSelector.self, forKey: .model))
        case .clientOperation:
            model = .clientOperation(try container.decode(FlowClientOperation.self, forKey: .model))
        }
    }

    /// Encodes an action with the template its model implies.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(template, forKey: .template)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(properties, forKey: .properties)
        switch model {
        case .form(let form): try container.encode(form, forKey: .model)
        case .selector(let selector): try container.encode(selector, forKey: .model)
        case .clientOperation(let operation): try container.encode(operation, forKey: .model)
        }
    }
}

/// A form: where to send which fields.
public struct FlowForm: Codable, Sendable, Equatable {
    /// Where the form goes.
    public var href: String
    /// `GET` or `POST`.
    public var method: String
    /// The media type of the submission (`application/json`).
    public var type: String
    /// Text for the submit button.
    public var actionTitle: String?
    /// The fields.
    public var fields: [FlowField]
    /// What follows a success, when the form is part of a client operation.
    public var continueActions: [FlowAction]?
    /// What follows a failure.
    public var errorActions: [FlowAction]?

    /// Creates a form.
    public init(
        href: String, method: String = "POST", type: String = "application/json", actionTitle: String? = nil,
        fields: [FlowField] = []
    ) {
        self.href = href
        self.method = method
        self.type = type
        self.actionTitle = actionTitle
        self.fields = fields
    }
}

/// A field of a form.
public struct FlowField: Codable, Sendable, Equatable {
    /// `hidden`, `text`, `password`, `username`, `select`, `checkbox` or `context`.
    public var type: String
    /// The name it is sent under.
    public var name: String
    /// Text for the person.
    public var label: String?
    /// The value to send (hidden fields) or to start with.
    public var value: String?
    /// Whether it must be sent with a value.
    public var required: Bool

    /// Creates a field.
    public init(type: String, name: String, label: String? = nil, value: String? = nil, required: Bool = false) {
        self.type = type
        self.name = name
        self.label = label
        self.value = value
        self.required = required
    }
}

/// A choice between actions.
public struct FlowSelector: Codable, Sendable, Equatable {
    /// The actions to choose from.
    public var options: [FlowAction]

    /// Creates a selector.
    public init(options: [FlowAction]) { self.options = options }
}

/// An operation the client performs: a WebAuthn ceremony (`webauthn-registration`,
/// `webauthn-authentication`) or a browser flow (`external-browser-flow`).
public struct FlowClientOperation: Codable, Sendable, Equatable {
    /// The operation.
    public var name: String
    /// Its input: `credentialCreationOptions.publicKey` or `credentialRequestOptions.publicKey`
    /// (W3C JSON).
    public var arguments: [String: JSONValue]
    /// Where the result goes (a form with a `credential` field).
    public var continueActions: [FlowAction]
    /// What the client offers when the operation fails or is cancelled.
    public var errorActions: [FlowAction]

    /// Creates a client operation.
    public init(
        name: String, arguments: [String: JSONValue], continueActions: [FlowAction], errorActions: [FlowAction]
    ) {
        self.name = name
        self.arguments = arguments
        self.continueActions = continueActions
        self.errorActions = errorActions
    }
}
