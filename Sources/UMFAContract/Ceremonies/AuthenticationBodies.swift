import UMFAWebAuthnTypes

/// `POST /api/umfa/authentication/options`: start a sign-in.
public struct AuthenticationOptionsRequest: ContractBody, Equatable {
    /// The application, a UUID.
    public var applicationID: String
    /// The user, or `nil` for a discoverable credential.
    public var userID: String?
    /// Hints for the user agent (`security-key`, `client-device`, `hybrid`, WebAuthn L3 §5.5),
    /// in place of the application's.
    public var hints: [String]?
    /// PRF inputs to pass on (WebAuthn L3 §10.1.4); `evalByCredential` needs `user_id`.
    public var prf: PRFRequestJSON?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(
        applicationID: String, userID: String? = nil, hints: [String]? = nil, prf: PRFRequestJSON? = nil,
        traceID: String? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.hints = hints
        self.prf = prf
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case hints, prf
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = AuthenticationOptionsRequest(
        applicationID: Examples.applicationID, userID: "alice", hints: ["security-key"], prf: .example,
        traceID: Examples.traceID)
}

/// The answer of `authentication/options`: `{trace_id, publicKey}`.
public struct AuthenticationOptionsResponse: ContractBody, TraceCarrying {
    /// The request's trace id.
    public var traceID: String
    /// `PublicKeyCredentialRequestOptionsJSON`.
    public var publicKey: RequestOptionsJSON

    /// Creates an answer.
    public init(traceID: String, publicKey: RequestOptionsJSON) {
        self.traceID = traceID
        self.publicKey = publicKey
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case publicKey
    }

    /// An example with every member.
    public static let example = AuthenticationOptionsResponse(
        traceID: Examples.traceID, publicKey: RequestOptionsJSON(challenge: Examples.bytes))
}

/// `POST /api/umfa/authentication/verify`: finish a sign-in.
public struct AuthenticationVerifyRequest: ContractBody {
    /// The application, a UUID.
    public var applicationID: String
    /// The user, or `nil` when the credential identifies them (discoverable).
    public var userID: String?
    /// The authenticator's answer, as `credential.toJSON()` gives it.
    public var credential: AuthenticationResponseJSON
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(
        applicationID: String, userID: String? = nil, credential: AuthenticationResponseJSON, traceID: String? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.credential = credential
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case credential
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = AuthenticationVerifyRequest(
        applicationID: Examples.applicationID, userID: "alice", credential: Examples.authenticationResponse,
        traceID: Examples.traceID)
}

/// `POST /api/umfa/unenroll`: remove the credential that signs a fresh challenge.
public struct UnenrollRequest: ContractBody {
    /// The application, a UUID.
    public var applicationID: String
    /// The credential's owner.
    public var userID: String
    /// An assertion over a challenge from `authentication/options`.
    public var credential: AuthenticationResponseJSON
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(applicationID: String, userID: String, credential: AuthenticationResponseJSON, traceID: String? = nil) {
        self.applicationID = applicationID
        self.userID = userID
        self.credential = credential
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case credential
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = UnenrollRequest(
        applicationID: Examples.applicationID, userID: "alice", credential: Examples.authenticationResponse,
        traceID: Examples.traceID)
}

/// The answer of `unenroll`: `{trace_id, user_id, credential_id, removed: true}`.
public struct UnenrollResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The credential's former owner.
    public var userID: String
    /// The removed credential, base64url.
    public var credentialID: String
    /// Always `true`.
    public var removed: Bool

    /// Creates an answer.
    public init(traceID: String, userID: String, credentialID: String, removed: Bool = true) {
        self.traceID = traceID
        self.userID = userID
        self.credentialID = credentialID
        self.removed = removed
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case userID = "user_id"
        case credentialID = "credential_id"
        case removed
    }

    /// An example with every member.
    public static let example = UnenrollResponse(traceID: Examples.traceID, userID: "alice", credentialID: "AQIDBA")
}

// MARK: - openapi.yaml

extension AuthenticationOptionsRequest: DocumentedFields {
    static let schemaDescription: String? = "Start a sign-in"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID: FieldDoc("The user; absent for a discoverable credential", .minLength(1), .maxLength(256))
        case .hints: .ref(.credentialHints)
        case .prf: .ref(.prfInputs)
        case .traceID: .ref(.traceID)
        }
    }
}

extension AuthenticationOptionsResponse: DocumentedFields {
    static let schemaDescription: String? =
        "The same shape for an unknown user_id as for a known one; the API never tells whether a user exists"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .publicKey:
            .written([
                "type": "object",
                "description":
                    "PublicKeyCredentialRequestOptionsJSON (W3C WebAuthn Level 3), for PublicKeyCredential.parseRequestOptionsFromJSON()",
            ])
        }
    }
}

extension AuthenticationVerifyRequest: DocumentedFields {
    static let schemaDescription: String? = "Finish a sign-in"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID:
            FieldDoc(
                "The user; absent when the credential identifies them (discoverable)", .minLength(1), .maxLength(256))
        case .credential:
            .written([
                "type": "object",
                "description": "AuthenticationResponseJSON (W3C WebAuthn Level 3), as credential.toJSON() gives it",
            ])
        case .traceID: .ref(.traceID)
        }
    }
}

extension UnenrollRequest: DocumentedFields {
    static let schemaDescription: String? = "Remove the credential that signs a fresh challenge"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID: .ref(.userID)
        case .credential:
            .written([
                "type": "object",
                "description":
                    "AuthenticationResponseJSON, an assertion over a fresh challenge from authentication/options",
            ])
        case .traceID: .ref(.traceID)
        }
    }
}

extension UnenrollResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .userID: FieldDoc("The credential's former owner")
        case .credentialID: .ref(.credentialID)
        case .removed: FieldDoc("Always true", .constant(true))
        }
    }
}
