import UMFAContract
import UMFAEncoding

/// An action of a step, Curity's `Action`: a ``FormAction``, a ``SelectorAction`` or a
/// ``ClientOperationAction``.
public protocol Action: Sendable {
    /// The action as the server sent it.
    var flowAction: FlowAction { get }
}

extension Action {
    /// What the action is (`passkey-sign-in`, `create-account`, `poll`, …), Curity's `kind`.
    public var kind: String { flowAction.kind }
    /// Text for a button or heading.
    public var title: String? { flowAction.title }
    /// More data for the client.
    public var properties: [String: JSONValue]? { flowAction.properties }
}

/// A form to submit, Curity's `FormAction`; submit its ``model`` with
/// ``FlowDriver/submitForm(_:parameters:)``.
public struct FormAction: Action {
    /// The action as the server sent it.
    public let flowAction: FlowAction
    /// The form.
    public let model: FormActionModel
}

/// A choice between actions, Curity's `SelectorAction`.
public struct SelectorAction: Action {
    /// The action as the server sent it.
    public let flowAction: FlowAction
    /// The actions to choose from.
    public let model: SelectorActionModel
}

/// An operation the client performs before it continues, Curity's `ClientOperationAction`.
public struct ClientOperationAction: Action {
    /// The action as the server sent it.
    public let flowAction: FlowAction
    /// The operation, typed by its name.
    public let model: any ClientOperationActionModel
}

/// A form: where to send which fields, Curity's `FormActionModel`.
public struct FormActionModel: Sendable {
    /// The form as the server sent it.
    public let flowForm: FlowForm
    /// Where the form goes.
    public var href: String { flowForm.href }
    /// `GET` or `POST`.
    public var method: String { flowForm.method }
    /// The media type of the submission.
    public var type: String { flowForm.type }
    /// Text for the submit button.
    public var actionTitle: String? { flowForm.actionTitle }
    /// The fields, typed by their `type`.
    public var fields: [any FormField] { flowForm.fields.map(typedField) }
}

/// A choice between actions, Curity's `SelectorActionModel`.
public struct SelectorActionModel: Sendable {
    /// The actions to choose from.
    public let options: [any Action]
}

/// The model of a ``ClientOperationAction``, Curity's `ClientOperationActionModel`.
public protocol ClientOperationActionModel: Sendable {
    /// The operation as the server sent it; a device performs it with
    /// ``PasskeyAccountClient/perform(_:label:)``.
    var operation: FlowClientOperation { get }
}

extension ClientOperationActionModel {
    /// The operation's name (`webauthn-authentication`, `webauthn-registration`, …).
    public var name: String { operation.name }
    /// Where the result goes: forms with a `credential` field.
    public var continueActions: [any Action] { operation.continueActions.map(typedAction) }
    /// What the client offers when the operation fails or is cancelled.
    public var errorActions: [any Action] { operation.errorActions.map(typedAction) }
    /// The first continue action's form.
    public var continueFormAction: FormAction? { continueActions.lazy.compactMap { $0 as? FormAction }.first }
}

/// A passkey sign-in (W3C WebAuthn `navigator.credentials.get`), Curity's
/// `WebAuthnAuthenticationClientOperationActionModel`.
public struct WebAuthnAuthenticationClientOperationActionModel: ClientOperationActionModel {
    /// The operation as the server sent it.
    public let operation: FlowClientOperation
    /// `credentialRequestOptions.publicKey`, W3C JSON.
    public var publicKey: JSONValue? { operation.arguments["credentialRequestOptions"]?.objectValue?["publicKey"] }
}

/// A passkey registration (W3C WebAuthn `navigator.credentials.create`), Curity's
/// `WebAuthnRegistrationClientOperationActionModel`.
public struct WebAuthnRegistrationClientOperationActionModel: ClientOperationActionModel {
    /// The operation as the server sent it.
    public let operation: FlowClientOperation
    /// `credentialCreationOptions.publicKey`, W3C JSON.
    public var publicKey: JSONValue? { operation.arguments["credentialCreationOptions"]?.objectValue?["publicKey"] }
}

/// An operation in an external browser (`external-browser-flow`), Curity's
/// `ExternalBrowserClientOperationActionModel`.
public struct ExternalBrowserClientOperationActionModel: ClientOperationActionModel {
    /// The operation as the server sent it.
    public let operation: FlowClientOperation
    /// The URL to open.
    public var arguments: [String: JSONValue] { operation.arguments }
}

/// Any other operation, Curity's `GenericClientOperationActionModel`.
public struct GenericClientOperationActionModel: ClientOperationActionModel {
    /// The operation as the server sent it.
    public let operation: FlowClientOperation
    /// Its input.
    public var arguments: [String: JSONValue] { operation.arguments }
}

/// The typed form of `action`.
func typedAction(_ action: FlowAction) -> any Action {
    switch action.model {
    case .form(let form): return FormAction(flowAction: action, model: FormActionModel(flowForm: form))
    case .selector(let selector):
        return SelectorAction(
            flowAction: action, model: SelectorActionModel(options: selector.options.map(typedAction)))
    case .clientOperation(let operation):
        return ClientOperationAction(flowAction: action, model: typedOperation(operation))
    }
}

func typedOperation(_ operation: FlowClientOperation) -> any ClientOperationActionModel {
    switch operation.name {
    case "webauthn-authentication": WebAuthnAuthenticationClientOperationActionModel(operation: operation)
    case "webauthn-registration": WebAuthnRegistrationClientOperationActionModel(operation: operation)
    case "external-browser-flow": ExternalBrowserClientOperationActionModel(operation: operation)
    default: GenericClientOperationActionModel(operation: operation)
    }
}
