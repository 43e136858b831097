import UMFAWebAuthnTypes

/// `POST /api/umfa/registration/options`: start a registration.
public struct RegistrationOptionsRequest: ContractBody, Equatable {
    /// The application, a UUID.
    public var applicationID: String
    /// The application's user id (1–256 bytes of UTF-8).
    public var userID: String
    /// The name the authenticator shows; the user id when absent.
    public var displayName: String?
    /// A grant from the application's backend (`POST /api/umfa/enrollment-tokens`).
    public var enrollmentToken: String?
    /// A recent login token of the user, to add a device under the `open` policy.
    public var token: String?
    /// Hints for the user agent (`security-key`, `client-device`, `hybrid`, WebAuthn L3 §5.4),
    /// in place of the application's.
    public var hints: [String]?
    /// PRF inputs to pass on (WebAuthn L3 §10.1.4); `{}` asks only whether PRF is supported.
    public var prf: PRFRequestJSON?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(
        applicationID: String, userID: String, displayName: String? = nil, enrollmentToken: String? = nil,
        token: String? = nil, hints: [String]? = nil, prf: PRFRequestJSON? = nil, traceID: String? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.displayName = displayName
        self.enrollmentToken = enrollmentToken
        self.token = token
        self.hints = hints
        self.prf = prf
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case displayName = "display_name"
        case enrollmentToken = "enrollment_token"
        case token, hints, prf
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = RegistrationOptionsRequest(
        applicationID: Examples.applicationID, userID: "alice", displayName: "Alice", enrollmentToken: "umfa_et_x",
        token: "eyJ", hints: ["client-device", "hybrid"], prf: PRFRequestJSON(eval: PRFRequestJSON.example.eval),
        traceID: Examples.traceID)
}

/// The answer of `registration/options`: `{trace_id, publicKey}`.
public struct RegistrationOptionsResponse: ContractBody, TraceCarrying {
    /// The request's trace id.
    public var traceID: String
    /// `PublicKeyCredentialCreationOptionsJSON`.
    public var publicKey: CreationOptionsJSON

    /// Creates an answer.
    public init(traceID: String, publicKey: CreationOptionsJSON) {
        self.traceID = traceID
        self.publicKey = publicKey
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case publicKey
    }

    /// An example with every member.
    public static let example = RegistrationOptionsResponse(
        traceID: Examples.traceID,
        publicKey: CreationOptionsJSON(
            rp: RelyingPartyEntity(id: "example.com", name: "Example"),
            user: UserEntity(id: Examples.bytes, name: "alice", displayName: "Alice"), challenge: Examples.bytes,
            pubKeyCredParams: [CredentialParameters(alg: .es256)]))
}

/// `POST /api/umfa/registration/verify`: finish a registration.
public struct RegistrationVerifyRequest: ContractBody {
    /// The application, a UUID.
    public var applicationID: String
    /// The user the options were issued for.
    public var userID: String
    /// The authenticator's answer, as `credential.toJSON()` gives it.
    public var credential: RegistrationResponseJSON
    /// A name for the device, at most 128 bytes.
    public var deviceName: String?
    /// The caller's trace id.
    public var traceID: String?

    /// Creates a request.
    public init(
        applicationID: String, userID: String, credential: RegistrationResponseJSON, deviceName: String? = nil,
        traceID: String? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.credential = credential
        self.deviceName = deviceName
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case credential
        case deviceName = "device_name"
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = RegistrationVerifyRequest(
        applicationID: Examples.applicationID, userID: "alice", credential: Examples.registrationResponse,
        deviceName: "Alice's phone", traceID: Examples.traceID)
}

/// The answer of both verify routes: `{trace_id, user_id, credential_id, token}`, and after a
/// registration what the client said of the new credential.
public struct CeremonyResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The user the credential belongs to.
    public var userID: String
    /// The credential, base64url.
    public var credentialID: String
    /// A login token (JWT) for the application's backend.
    public var token: String
    /// Registration only: whether the credential is discoverable (`credProps.rk`, WebAuthn L3
    /// §10.1.3); absent when the client did not say.
    public var discoverable: Bool?
    /// Registration only: whether the credential supports PRF (`prf.enabled`, WebAuthn L3
    /// §10.1.4); absent when the client did not say.
    public var prfEnabled: Bool?

    /// Creates an answer.
    public init(
        traceID: String, userID: String, credentialID: String, token: String, discoverable: Bool? = nil,
        prfEnabled: Bool? = nil
    ) {
        self.traceID = traceID
        self.userID = userID
        self.credentialID = credentialID
        self.token = token
        self.discoverable = discoverable
        self.prfEnabled = prfEnabled
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case userID = "user_id"
        case credentialID = "credential_id"
        case token, discoverable
        case prfEnabled = "prf_enabled"
    }

    /// An example with every member.
    public static let example = CeremonyResponse(
        traceID: Examples.traceID, userID: "alice", credentialID: "AQIDBA", token: "eyJ", discoverable: true,
        prfEnabled: true)
}

// MARK: - openapi.yaml

extension RegistrationOptionsRequest: DocumentedFields {
    static let schemaDescription: String? = "Start a registration"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID: .ref(.userID)
        case .displayName: FieldDoc("The name the authenticator shows; the user id when absent")
        case .enrollmentToken:
            FieldDoc(
                "A single-use grant (umfa_et_...) from the application's backend (POST /api/umfa/enrollment-tokens); needed under the grant policy"
            )
        case .token:
            FieldDoc("A UMFA login token of the user, at most 5 minutes old, to add a device under the open policy")
        case .hints: .ref(.credentialHints)
        case .prf: .ref(.registrationPRFInputs)
        case .traceID: .ref(.traceID)
        }
    }
}

extension RegistrationOptionsResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .publicKey:
            .written([
                "type": "object",
                "description":
                    "PublicKeyCredentialCreationOptionsJSON (W3C WebAuthn Level 3), for PublicKeyCredential.parseCreationOptionsFromJSON()",
            ])
        }
    }
}

extension RegistrationVerifyRequest: DocumentedFields {
    static let schemaDescription: String? = "Finish a registration"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID: .ref(.userID)
        case .credential:
            .written([
                "type": "object",
                "description": "RegistrationResponseJSON (W3C WebAuthn Level 3), as credential.toJSON() gives it",
            ])
        case .deviceName: FieldDoc("A name for the device; longer names are cut to 128 characters")
        case .traceID: .ref(.traceID)
        }
    }
}

extension CeremonyResponse: DocumentedFields {
    static let schemaDescription: String? = "The answer of both verify routes"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .userID: FieldDoc("The user the credential belongs to")
        case .credentialID: .ref(.credentialID)
        case .token: FieldDoc("RS256 login JWT for the application's backend")
        case .discoverable:
            FieldDoc(
                "Registration only: whether the new credential is discoverable (credProps.rk, WebAuthn L3 §10.1.3); absent when the client did not say"
            )
        case .prfEnabled:
            FieldDoc(
                "Registration only: whether the new credential supports PRF (prf.enabled, WebAuthn L3 §10.1.4); absent when the client did not say"
            )
        }
    }
}
