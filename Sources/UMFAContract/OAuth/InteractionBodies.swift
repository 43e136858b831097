import UMFAWebAuthnTypes

/// `POST <issuer>/interaction/sign-in/options`: the hosted page starts a passkey sign-in for an
/// authorization request in progress.
public struct InteractionSignInOptionsRequest: ContractBody, Equatable {
    /// The authorization request's handle, from the page.
    public var interaction: String
    /// What the person typed: an email address or a user id; `nil` for a discoverable passkey.
    public var login: String?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(interaction: String, login: String? = nil, traceID: String? = nil) {
        self.interaction = interaction
        self.login = login
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case interaction, login
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = InteractionSignInOptionsRequest(
        interaction: "h", login: "alice@example.com", traceID: Examples.traceID)
}

/// `POST <issuer>/interaction/sign-in/verify`: the passkey's answer.
public struct InteractionSignInVerifyRequest: ContractBody {
    /// The authorization request's handle.
    public var interaction: String
    /// `credential.toJSON()` of the assertion.
    public var credential: AuthenticationResponseJSON
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(interaction: String, credential: AuthenticationResponseJSON, traceID: String? = nil) {
        self.interaction = interaction
        self.credential = credential
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case interaction, credential
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = InteractionSignInVerifyRequest(
        interaction: "h", credential: Examples.authenticationResponse, traceID: Examples.traceID)
}

/// `POST <issuer>/interaction/create-account/options`: a new account with a profile
/// (OpenID Connect Core §5.1 names) and its first passkey.
public struct InteractionCreateAccountRequest: ContractBody, Equatable {
    /// The authorization request's handle.
    public var interaction: String
    /// The email address: required, unique per application (case-insensitive).
    public var email: String
    /// Given name.
    public var givenName: String?
    /// Family name.
    public var familyName: String?
    /// Phone number (E.164 recommended).
    public var phoneNumber: String?
    /// A name for the passkey.
    public var deviceName: String?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(
        interaction: String, email: String, givenName: String? = nil, familyName: String? = nil,
        phoneNumber: String? = nil, deviceName: String? = nil, traceID: String? = nil
    ) {
        self.interaction = interaction
        self.email = email
        self.givenName = givenName
        self.familyName = familyName
        self.phoneNumber = phoneNumber
        self.deviceName = deviceName
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case interaction, email
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
        case deviceName = "device_name"
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = InteractionCreateAccountRequest(
        interaction: "h", email: "alice@example.com", givenName: "Alice", familyName: "Example",
        phoneNumber: "+15555550100", deviceName: "Alice's phone", traceID: Examples.traceID)
}

/// `POST <issuer>/interaction/create-account/verify`: the new passkey's answer.
public struct InteractionCreateAccountVerifyRequest: ContractBody {
    /// The authorization request's handle.
    public var interaction: String
    /// `credential.toJSON()` of the registration.
    public var credential: RegistrationResponseJSON
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(interaction: String, credential: RegistrationResponseJSON, traceID: String? = nil) {
        self.interaction = interaction
        self.credential = credential
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case interaction, credential
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = InteractionCreateAccountVerifyRequest(
        interaction: "h", credential: Examples.registrationResponse, traceID: Examples.traceID)
}

/// `POST <issuer>/interaction/consent`: the person's answer to the consent screen.
public struct InteractionConsentRequest: ContractBody, Equatable {
    /// The authorization request's handle.
    public var interaction: String
    /// Whether the person allows the client the scopes it asked for.
    public var allow: Bool
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(interaction: String, allow: Bool, traceID: String? = nil) {
        self.interaction = interaction
        self.allow = allow
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case interaction, allow
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = InteractionConsentRequest(interaction: "h", allow: true, traceID: Examples.traceID)
}

/// `POST <issuer>/interaction/verify-email`: after a hosted sign-up, the code mailed to the new
/// address, or no code to skip the step (the address stays unverified).
public struct InteractionVerifyEmailRequest: ContractBody, Equatable {
    /// The authorization request's handle.
    public var interaction: String
    /// The six digits of the mail; absent to skip.
    public var code: String?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(interaction: String, code: String?, traceID: String? = nil) {
        self.interaction = interaction
        self.code = code
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case interaction, code
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = InteractionVerifyEmailRequest(
        interaction: "h", code: "123456", traceID: Examples.traceID)
}

/// What the hosted page does next: follow `redirect_to` back to the client, ask for consent, or
/// ask for the code mailed to a new account's address.
public struct InteractionStepResponse: ContractBody, TraceCarrying, Equatable {
    /// What comes next.
    public enum Next: String, Codable, Sendable {
        /// Go to `redirect_to` (the client's redirect URI with the code or an error).
        case redirect
        /// Show the consent screen for `client_name` and `scopes`.
        case consent
        /// A new account's address was mailed a code: ask for it, then send it (or nothing, to
        /// skip) to `interaction/verify-email`, whose answer says what comes next.
        case verifyEmail = "verify_email"
    }

    /// The request's trace id.
    public var traceID: String
    /// What comes next.
    public var next: Next
    /// Where the browser goes, for `redirect`.
    public var redirectTo: String?
    /// The client's name, for `consent`.
    public var clientName: String?
    /// The scopes to consent to, for `consent`.
    public var scopes: [String]?
    /// For `consent`: the canonical text of the request's `authorization_details` (RFC 9396,
    /// docs/ciba.md), shown as it is.
    public var authorizationDetails: String?

    /// Creates an answer.
    public init(
        traceID: String, next: Next, redirectTo: String? = nil, clientName: String? = nil, scopes: [String]? = nil,
        authorizationDetails: String? = nil
    ) {
        self.traceID = traceID
        self.next = next
        self.redirectTo = redirectTo
        self.clientName = clientName
        self.scopes = scopes
        self.authorizationDetails = authorizationDetails
    }

    enum CodingKeys: String, CodingKey {
        case next, scopes
        case traceID = "trace_id"
        case redirectTo = "redirect_to"
        case clientName = "client_name"
        case authorizationDetails = "authorization_details"
    }

    /// An example with every member.
    public static let example = InteractionStepResponse(
        traceID: Examples.traceID, next: .redirect, redirectTo: "https://app.example/callback?code=c",
        clientName: "Shop", scopes: ["openid", "email"],
        authorizationDetails: "type: payment_initiation\ninstructedAmount.amount: 120.00")
}

// MARK: - openapi.yaml

extension InteractionSignInOptionsRequest: DocumentedFields {
    static let schemaDescription: String? = "The hosted page starts a passkey sign-in for an authorization request"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .interaction: FieldDoc("The authorization request's handle", .maxLength(64))
        case .login: FieldDoc("An email address or user id; absent for a discoverable passkey", .maxLength(256))
        case .traceID: .ref(.traceID)
        }
    }
}

extension InteractionVerifyEmailRequest: DocumentedFields {
    static let schemaDescription: String? =
        "After a hosted sign-up: the code mailed to the new address, or no code to skip the step"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .interaction: FieldDoc("The authorization request's handle", .maxLength(64))
        case .code: FieldDoc("The six digits of the mail; absent to skip (the address stays unverified)")
        case .traceID: .ref(.traceID)
        }
    }
}

extension InteractionSignInVerifyRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .interaction: FieldDoc(nil, .maxLength(64))
        case .credential:
            .written(["type": "object", "description": "AuthenticationResponseJSON (W3C WebAuthn Level 3)"])
        case .traceID: .ref(.traceID)
        }
    }
}

extension InteractionCreateAccountRequest: DocumentedFields {
    static let schemaDescription: String? = "A new account's profile (OpenID Connect Core §5.1 names)"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .interaction: FieldDoc(nil, .maxLength(64))
        case .email: FieldDoc("Unique per application, compared without case", .maxLength(254))
        case .givenName: FieldDoc(nil, .maxLength(256))
        case .familyName: FieldDoc(nil, .maxLength(256))
        case .phoneNumber: FieldDoc(nil, .maxLength(32))
        case .deviceName: FieldDoc("A name for the passkey", .maxLength(128))
        case .traceID: .ref(.traceID)
        }
    }
}

extension InteractionCreateAccountVerifyRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .interaction: FieldDoc(nil, .maxLength(64))
        case .credential:
            .written(["type": "object", "description": "RegistrationResponseJSON (W3C WebAuthn Level 3)"])
        case .traceID: .ref(.traceID)
        }
    }
}

extension InteractionConsentRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .interaction: FieldDoc(nil, .maxLength(64))
        case .allow: .plain
        case .traceID: .ref(.traceID)
        }
    }
}

extension InteractionStepResponse: DocumentedFields {
    static let schemaDescription: String? = "What the hosted page does next"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .next: FieldDoc(nil, .enumeration(["redirect", "consent", "verify_email"]))
        case .scopes: .plain
        case .traceID: .ref(.echoedTraceID)
        case .redirectTo: FieldDoc("The client's redirect URI with code, state and iss (or an error)")
        case .clientName: .plain
        case .authorizationDetails:
            FieldDoc("For consent: the canonical text of the request's authorization_details, to show as it is")
        }
    }
}
