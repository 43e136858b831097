import UMFAWebAuthnTypes

/// `POST /oidc/{application_id}/recovery`: the address of an account whose passkeys are lost.
public struct EmailRecoveryRequest: ContractBody, Equatable {
    /// The account's email address.
    public var email: String

    /// Creates a request.
    public init(email: String) { self.email = email }

    /// An example with every member.
    public static let example = EmailRecoveryRequest(email: "ada@example.com")

    enum CodingKeys: String, CodingKey {
        case email
    }
}

/// The answer to a recovery request: the same whether the address belongs to an account or not.
public struct EmailRecoveryResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// What the person reads.
    public var message: String

    /// Creates an answer.
    public init(traceID: String, message: String) {
        self.traceID = traceID
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case message
    }

    /// An example with every member.
    public static let example = EmailRecoveryResponse(
        traceID: Examples.traceID,
        message: "If this address belongs to a verified account, a link to register a new passkey is on its way.")
}

/// `POST /oidc/{application_id}/recovery/options`: the link's token, for creation options.
public struct EmailRecoveryOptionsRequest: ContractBody, Equatable {
    /// The token of the mailed link.
    public var token: String

    /// Creates a request.
    public init(token: String) { self.token = token }

    /// An example with every member.
    public static let example = EmailRecoveryOptionsRequest(token: "umfa_rl_Zm9vYmFy")

    enum CodingKeys: String, CodingKey {
        case token
    }
}

/// `POST /oidc/{application_id}/recovery/verify`: the new passkey, and the link it spends.
public struct EmailRecoveryVerifyRequest: ContractBody, Equatable {
    /// The token of the mailed link.
    public var token: String
    /// The `RegistrationResponseJSON` of the new passkey.
    public var credential: RegistrationResponseJSON

    /// Creates a request.
    public init(token: String, credential: RegistrationResponseJSON) {
        self.token = token
        self.credential = credential
    }

    /// An example with every member.
    public static let example = EmailRecoveryVerifyRequest(
        token: "umfa_rl_Zm9vYmFy", credential: RegistrationVerifyRequest.example.credential)

    enum CodingKeys: String, CodingKey {
        case token, credential
    }
}

/// The account a recovery gave a new passkey.
public struct EmailRecoveredResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The user.
    public var userID: String
    /// The new passkey's credential id, base64url.
    public var credentialID: String

    /// Creates an answer.
    public init(traceID: String, userID: String, credentialID: String) {
        self.traceID = traceID
        self.userID = userID
        self.credentialID = credentialID
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case userID = "user_id"
        case credentialID = "credential_id"
    }

    /// An example with every member.
    public static let example = EmailRecoveredResponse(
        traceID: Examples.traceID, userID: "alice", credentialID: "AQIDBA")
}

// MARK: - openapi.yaml

extension EmailRecoveryRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .email: FieldDoc(nil, .format("email"), .maxLength(254))
        }
    }
}

extension EmailRecoveryResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .message: FieldDoc("The same text whether or not the address belongs to an account")
        }
    }
}

extension EmailRecoveryOptionsRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .token: FieldDoc("The token of the mailed link", .maxLength(128))
        }
    }
}

extension EmailRecoveryVerifyRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .token: FieldDoc("The token of the mailed link; spent by a registration that succeeds", .maxLength(128))
        case .credential:
            .written(["type": "object", "description": "RegistrationResponseJSON (W3C WebAuthn Level 3)"])
        }
    }
}

extension EmailRecoveredResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .userID: .ref(.userID)
        case .credentialID: FieldDoc("The new passkey's credential id, base64url")
        }
    }
}
