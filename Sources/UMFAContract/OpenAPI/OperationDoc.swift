/// What `openapi.yaml` says about one operation beyond its declaration
/// (``APIOperation/declaration``): its prose, the parameters outside its path, the statuses it
/// fails with, and the bodies that are not contract types (forms, pages, scripts).
struct OperationDoc: Sendable {
    /// One line: what the operation does.
    var summary: String
    /// More, when one line is not enough.
    var description: String? = nil
    /// The security requirements, where they differ from what the declared access implies
    /// (operations open in the table that take a credential of their own).
    var security: YAMLNode? = nil
    /// The path parameters, where a name means something else than ``ParameterComponent/forPath(_:)`` says.
    var pathParameters: [Parameter]? = nil
    /// The parameters after the path's: query parameters.
    var parameters: [Parameter] = []
    /// A request body that is not a contract type (a form), written out; for an operation
    /// whose body is a contract type, members added to the JSON one (other media types of the
    /// same body, `required: false`).
    var requestBody: YAMLNode? = nil
    /// The success answer's description (none where ``successAnswer`` refers to a shared answer).
    var success: String? = nil
    /// The success answer's content and headers when it is not a contract type, written out, or
    /// a reference to a shared answer.
    var successAnswer: YAMLNode? = nil
    /// The statuses the operation answers besides its success: its errors, each in the
    /// declared error shape, and the redirects and `304 Not Modified` of pages and files.
    var statuses: [Int]
    /// Answers written out in place (redirects, `304`, a page's own refusals in HTML).
    var writtenAnswers: [(Int, YAMLNode)] = []
}

/// A parameter of an operation: one of the shared ones, or one written out in place.
enum Parameter: Sendable {
    case shared(ParameterComponent)
    case written(YAMLNode)
}
