/// `POST /api/umfa/me/email/verify`: the code the verification mail gave.
public struct EmailVerifyRequest: ContractBody, Equatable {
    /// The six digits of the mail (checked after the caller's token, so a caller without one
    /// learns nothing from the body's shape).
    public var code: String?

    /// Creates a request.
    public init(code: String?) { self.code = code }

    /// An example with every member.
    public static let example = EmailVerifyRequest(code: "493817")

    enum CodingKeys: String, CodingKey {
        case code
    }
}

/// The signed-in user's email address and whether it is verified (docs/self-service.md,
/// "Verifying the email address").
public struct EmailVerificationResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The user's email address.
    public var email: String
    /// Whether it is verified.
    public var emailVerified: Bool
    /// When the code just mailed stops working (RFC 3339); absent once the address is verified.
    public var codeExpiresAt: String?

    /// Creates an answer.
    public init(traceID: String, email: String, emailVerified: Bool, codeExpiresAt: String? = nil) {
        self.traceID = traceID
        self.email = email
        self.emailVerified = emailVerified
        self.codeExpiresAt = codeExpiresAt
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case email
        case emailVerified = "email_verified"
        case codeExpiresAt = "code_expires_at"
    }

    /// An example with every member.
    public static let example = EmailVerificationResponse(
        traceID: Examples.traceID, email: "ada@example.com", emailVerified: false, codeExpiresAt: Examples.time)
}

// MARK: - openapi.yaml

extension EmailVerifyRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .code: FieldDoc("The six digits of the mail; without them, 400", .maxLength(16))
        }
    }
}

extension EmailVerificationResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .email: FieldDoc(nil, .format("email"))
        case .emailVerified: FieldDoc("true once a code mailed to it was entered, or the backend vouched for it")
        case .codeExpiresAt: FieldDoc("When the code just mailed stops working", .format("date-time"))
        }
    }
}
