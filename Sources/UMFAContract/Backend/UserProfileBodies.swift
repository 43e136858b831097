/// `PATCH /api/umfa/users/{user_id}/profile` (API key): the application's backend changes a
/// user's profile claims. A member left out stays as it is; an empty string removes a value.
public struct UserProfileRequest: ContractBody, Equatable {
    /// The application, a UUID.
    public var applicationID: String
    /// Email address, unique per application (case-insensitive).
    public var email: String?
    /// Whether the application has verified the email address.
    public var emailVerified: Bool?
    /// Given name.
    public var givenName: String?
    /// Family name.
    public var familyName: String?
    /// Phone number.
    public var phoneNumber: String?
    /// Whether the application has verified the phone number.
    public var phoneNumberVerified: Bool?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(
        applicationID: String, email: String? = nil, emailVerified: Bool? = nil, givenName: String? = nil,
        familyName: String? = nil, phoneNumber: String? = nil, phoneNumberVerified: Bool? = nil, traceID: String? = nil
    ) {
        self.applicationID = applicationID
        self.email = email
        self.emailVerified = emailVerified
        self.givenName = givenName
        self.familyName = familyName
        self.phoneNumber = phoneNumber
        self.phoneNumberVerified = phoneNumberVerified
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case email
        case applicationID = "application_id"
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = UserProfileRequest(
        applicationID: Examples.applicationID, email: "alice@example.com", emailVerified: true, givenName: "Alice",
        familyName: "Example", phoneNumber: "+15555550100", phoneNumberVerified: false, traceID: Examples.traceID)
}

/// A user's profile as the provider keeps it (the claims of OpenID Connect Core §5.1).
public struct UserProfileResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The user.
    public var userID: String
    /// Email address.
    public var email: String?
    /// Whether the application has verified the email address.
    public var emailVerified: Bool
    /// Given name.
    public var givenName: String?
    /// Family name.
    public var familyName: String?
    /// Phone number.
    public var phoneNumber: String?
    /// Whether the application has verified the phone number.
    public var phoneNumberVerified: Bool

    /// Creates an answer.
    public init(
        traceID: String, userID: String, email: String?, emailVerified: Bool, givenName: String?,
        familyName: String?, phoneNumber: String?, phoneNumberVerified: Bool
    ) {
        self.traceID = traceID
        self.userID = userID
        self.email = email
        self.emailVerified = emailVerified
        self.givenName = givenName
        self.familyName = familyName
        self.phoneNumber = phoneNumber
        self.phoneNumberVerified = phoneNumberVerified
    }

    enum CodingKeys: String, CodingKey {
        case email
        case traceID = "trace_id"
        case userID = "user_id"
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
    }

    /// An example with every member.
    public static let example = UserProfileResponse(
        traceID: Examples.traceID, userID: "3d5c7a0e-8f1b-4c2d-9e3f-4a5b6c7d8e9f", email: "alice@example.com",
        emailVerified: true, givenName: "Alice", familyName: "Example", phoneNumber: "+15555550100",
        phoneNumberVerified: false)
}

// MARK: - openapi.yaml

extension UserProfileRequest: DocumentedFields {
    static let schemaDescription: String? =
        "Profile members to change; an absent member stays, an empty string removes a value"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .email: FieldDoc(nil, .maxLength(254))
        case .applicationID: .ref(.applicationID)
        case .emailVerified: .plain
        case .givenName: FieldDoc(nil, .maxLength(256))
        case .familyName: FieldDoc(nil, .maxLength(256))
        case .phoneNumber: FieldDoc(nil, .maxLength(32))
        case .phoneNumberVerified: .plain
        case .traceID: .ref(.traceID)
        }
    }
}

extension UserProfileResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .email: .plain
        case .traceID: .ref(.echoedTraceID)
        case .userID: .plain
        case .emailVerified: .plain
        case .givenName: .plain
        case .familyName: .plain
        case .phoneNumber: .plain
        case .phoneNumberVerified: .plain
        }
    }
}
