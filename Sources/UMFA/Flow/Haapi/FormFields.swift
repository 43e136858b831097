import UMFAContract

/// A field of a form, Curity's `FormField`: ``TextFormField``, ``PasswordFormField``,
/// ``UsernameFormField``, ``HiddenFormField``, ``SelectFormField``, ``CheckboxFormField`` or
/// ``ContextFormField``, by the field's `type`.
public protocol FormField: Sendable {
    /// The field as the server sent it.
    var flowField: FlowField { get }
}

extension FormField {
    /// The name it is sent under.
    public var name: String { flowField.name }
    /// Text for the person.
    public var label: String? { flowField.label }
    /// The value to send (hidden fields) or to start with.
    public var value: String? { flowField.value }
    /// Whether it must be sent with a value.
    public var isRequired: Bool { flowField.required }
}

/// A text field (`text`).
public struct TextFormField: FormField {
    /// The field as the server sent it.
    public let flowField: FlowField
}

/// A password field (`password`).
public struct PasswordFormField: FormField {
    /// The field as the server sent it.
    public let flowField: FlowField
}

/// A username field (`username`): an email address or user id.
public struct UsernameFormField: FormField {
    /// The field as the server sent it.
    public let flowField: FlowField
}

/// A hidden field (`hidden`), sent with its value.
public struct HiddenFormField: FormField {
    /// The field as the server sent it.
    public let flowField: FlowField
}

/// A choice (`select`).
public struct SelectFormField: FormField {
    /// The field as the server sent it.
    public let flowField: FlowField
}

/// A checkbox (`checkbox`).
public struct CheckboxFormField: FormField {
    /// The field as the server sent it.
    public let flowField: FlowField
}

/// Context for the person, not sent (`context`).
public struct ContextFormField: FormField {
    /// The field as the server sent it.
    public let flowField: FlowField
}

/// The typed form of `field`; an unknown type reads as a text field.
func typedField(_ field: FlowField) -> any FormField {
    switch field.type {
    case "password": PasswordFormField(flowField: field)
    case "username": UsernameFormField(flowField: field)
    case "hidden": HiddenFormField(flowField: field)
    case "select": SelectFormField(flowField: field)
    case "checkbox": CheckboxFormField(flowField: field)
    case "context": ContextFormField(flowField: field)
    default: TextFormField(flowField: field)
    }
}
