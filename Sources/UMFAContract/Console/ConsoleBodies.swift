import UMFAWebAuthnTypes

/// `POST /admin/session/enroll-options`: the admin token, for the options of a new operator
/// passkey.
public struct ConsoleEnrollOptionsRequest: ContractBody {
    /// The server's admin token.
    public var adminToken: String

    /// Creates a request.
    public init(adminToken: String) { self.adminToken = adminToken }

    enum CodingKeys: String, CodingKey { case adminToken = "admin_token" }

    /// An example with every member.
    public static let example = ConsoleEnrollOptionsRequest(adminToken: "umfa_admin_…")
}

/// `POST /admin/session/enroll`: the admin token again, and the new passkey.
public struct ConsoleEnrollRequest: ContractBody {
    /// The server's admin token.
    public var adminToken: String
    /// The authenticator's answer, as `credential.toJSON()` gives it.
    public var credential: RegistrationResponseJSON
    /// A name for the passkey, shown in the console (1 to 64 characters).
    public var name: String?

    /// Creates a request.
    public init(adminToken: String, credential: RegistrationResponseJSON, name: String? = nil) {
        self.adminToken = adminToken
        self.credential = credential
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case adminToken = "admin_token"
        case credential, name
    }

    /// An example with every member.
    public static let example = ConsoleEnrollRequest(
        adminToken: "umfa_admin_…", credential: Examples.registrationResponse, name: "Ops laptop")
}

/// `POST /admin/session`: an operator passkey's assertion.
public struct ConsoleSignInRequest: ContractBody {
    /// The authenticator's answer, as `credential.toJSON()` gives it.
    public var credential: AuthenticationResponseJSON

    /// Creates a request.
    public init(credential: AuthenticationResponseJSON) { self.credential = credential }

    /// An example with every member.
    public static let example = ConsoleSignInRequest(credential: Examples.authenticationResponse)

    enum CodingKeys: String, CodingKey {
        case credential
    }
}

/// The console session: the CSRF token the page sends as `X-CSRF-Token` with every admin call,
/// beside the `HttpOnly` cookie it cannot read.
public struct ConsoleSessionResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The value of `X-CSRF-Token` for this session.
    public var csrfToken: String
    /// When the session ends (RFC 3339).
    public var expiresAt: String
    /// The name of the passkey that signed in.
    public var passkeyName: String

    /// Creates an answer.
    public init(traceID: String, csrfToken: String, expiresAt: String, passkeyName: String) {
        self.traceID = traceID
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
        self.passkeyName = passkeyName
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case csrfToken = "csrf_token"
        case expiresAt = "expires_at"
        case passkeyName = "passkey_name"
    }

    /// An example with every member.
    public static let example = ConsoleSessionResponse(
        traceID: Examples.traceID, csrfToken: "q2Vh…", expiresAt: Examples.time, passkeyName: "Ops laptop")
}

// MARK: - openapi.yaml

extension ConsoleEnrollOptionsRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .adminToken: FieldDoc("The server's admin token (wrong ones count like wrong admin tokens)")
        }
    }
}

extension ConsoleEnrollRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .adminToken: .plain
        case .credential:
            .written(["type": "object", "description": "RegistrationResponseJSON, as credential.toJSON() gives it"])
        case .name: FieldDoc(nil, .maxLength(64))
        }
    }
}

extension ConsoleSignInRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .credential:
            .written(["type": "object", "description": "AuthenticationResponseJSON, as credential.toJSON() gives it"])
        }
    }
}

extension ConsoleSessionResponse: DocumentedFields {
    static let schemaDescription: String? =
        "The console session; its cookie (umfa_console, HttpOnly, SameSite=Strict) is set beside this answer"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .csrfToken: FieldDoc("Send as X-CSRF-Token with every admin call made with the cookie")
        case .expiresAt: FieldDoc(nil, .format("date-time"))
        case .passkeyName: .plain
        }
    }
}
