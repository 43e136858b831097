/// The parameters operations share, under `components/parameters`.
enum ParameterComponent: String, CaseIterable, Sendable {
    case userQuery = "UserQuery"
    case auditApplicationFilter = "AuditApplicationFilter"
    case auditUserFilter = "AuditUserFilter"
    case auditActionFilter = "AuditActionFilter"
    case auditSince = "AuditSince"
    case auditUntil = "AuditUntil"
    case auditLimit = "AuditLimit"
    case auditCursor = "AuditCursor"
    case confirmLast = "ConfirmLast"
    case traceID = "TraceID"
    case userID = "UserID"
    case credentialID = "CredentialID"
    case applicationQuery = "ApplicationQuery"
    case applicationPath = "ApplicationPath"
    case consoleCredentialPath = "ConsoleCredentialPath"
    case consoleSessionPath = "ConsoleSessionPath"
    case keyID = "KeyID"
    case clientIDPath = "ClientIDPath"
    case flowPath = "FlowPath"
    case issuerPath = "IssuerPath"
    case recoveryTokenPath = "RecoveryTokenPath"

    /// The parameter object (OpenAPI 3.1 §4.8.12).
    var definition: YAMLNode {
        switch self {
        case .userQuery:
            [
                "name": "query", "in": "query", "required": false,
                "description":
                    "A user id or e-mail address, matched exactly (e-mail without regard to case); absent, the newest 50 users",
                "schema": ["type": "string", "maxLength": 256],
            ]
        case .auditApplicationFilter:
            [
                "name": "application_id", "in": "query", "required": false,
                "description": "Only this application's events", "schema": ["type": "string", "format": "uuid"],
            ]
        case .auditUserFilter:
            [
                "name": "user_id", "in": "query", "required": false, "description": "Only this user's events",
                "schema": ["type": "string"],
            ]
        case .auditActionFilter:
            [
                "name": "action", "in": "query", "required": false, "description": "Only this action",
                "schema": ["type": "string"],
            ]
        case .auditSince:
            [
                "name": "since", "in": "query", "required": false,
                "description": "Events at or after this time (RFC 3339)",
                "schema": ["type": "string", "format": "date-time"],
            ]
        case .auditUntil:
            [
                "name": "until", "in": "query", "required": false, "description": "Events before this time (RFC 3339)",
                "schema": ["type": "string", "format": "date-time"],
            ]
        case .auditLimit:
            [
                "name": "limit", "in": "query", "required": false,
                "description": "Events per page, 1 to 1000 (default 100)",
                "schema": ["type": "integer", "minimum": 1, "maximum": 1000],
            ]
        case .auditCursor:
            [
                "name": "cursor", "in": "query", "required": false,
                "description": "The next_cursor of the previous page", "schema": ["type": "string"],
            ]
        case .confirmLast:
            [
                "name": "confirm_last", "in": "query", "required": false,
                "description": "true to delete the user's last passkey (else 409)", "schema": ["type": "boolean"],
            ]
        case .traceID:
            [
                "name": "trace_id", "in": "query", "required": false,
                "description": "The caller's trace id, for requests without a JSON body",
                "schema": ["type": "string", "maxLength": 128],
            ]
        case .userID:
            [
                "name": "user_id", "in": "path", "required": true,
                "description": "The application's user id, percent-encoded (alice%40example.com)",
                "schema": ["type": "string", "minLength": 1, "maxLength": 256],
            ]
        case .credentialID:
            [
                "name": "credential_id", "in": "path", "required": true, "description": "The credential id, base64url",
                "schema": ["type": "string"],
            ]
        case .applicationQuery:
            [
                "name": "application_id", "in": "query", "required": true,
                "description": "The application, a UUID; the API key must belong to it",
                "schema": ["type": "string", "format": "uuid"],
            ]
        case .applicationPath:
            [
                "name": "id", "in": "path", "required": true, "description": "The application's id",
                "schema": ["type": "string", "format": "uuid"],
            ]
        case .consoleCredentialPath:
            [
                "name": "credential_id", "in": "path", "required": true,
                "description": "The operator passkey's credential id (base64url)", "schema": ["type": "string"],
            ]
        case .consoleSessionPath:
            [
                "name": "session_id", "in": "path", "required": true,
                "description": "The session id from the list of console sessions", "schema": ["type": "string"],
            ]
        case .keyID:
            [
                "name": "key_id", "in": "path", "required": true, "description": "The API key's public id",
                "schema": ["type": "string"],
            ]
        case .clientIDPath:
            [
                "name": "client_id", "in": "path", "required": true, "description": "The OAuth client's id",
                "schema": ["type": "string"],
            ]
        case .flowPath:
            [
                "name": "flow_id", "in": "path", "required": true,
                "description": "The flow, as the step's href names it", "schema": ["type": "string", "maxLength": 64],
            ]
        case .issuerPath:
            [
                "name": "application_id", "in": "path", "required": true,
                "description": "The application whose issuer this is", "schema": ["type": "string", "format": "uuid"],
            ]
        case .recoveryTokenPath:
            [
                "name": "token", "in": "path", "required": true,
                "description": "The token of a mailed recovery link", "schema": ["type": "string", "maxLength": 128],
            ]
        }
    }

    /// The parameter a `{name}` path segment stands for, unless the operation says otherwise.
    static func forPath(_ name: String) -> ParameterComponent? {
        switch name {
        case "application_id": .issuerPath
        case "client_id": .clientIDPath
        case "credential_id": .credentialID
        case "flow_id": .flowPath
        case "id": .applicationPath
        case "key_id": .keyID
        case "session_id": .consoleSessionPath
        case "user_id": .userID
        case "token": .recoveryTokenPath
        default: nil
        }
    }
}
