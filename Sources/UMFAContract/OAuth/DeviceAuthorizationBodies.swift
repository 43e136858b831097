/// The device authorization endpoint's answer (RFC 8628 §3.2): the code the device polls with,
/// the code the person types, and where they type it.
public struct DeviceAuthorizationResponse: ContractBody, Equatable {
    /// The device verification code, for the token endpoint (`grant_type`
    /// `urn:ietf:params:oauth:grant-type:device_code`); secret to the device.
    public var deviceCode: String
    /// The end-user verification code: eight letters shown as `XXXX-XXXX` (RFC 8628 §6.1).
    public var userCode: String
    /// The hosted page where the person types the user code.
    public var verificationURI: String
    /// The same page with the user code filled in, for a QR code or a link (RFC 8628 §3.3.1).
    public var verificationURIComplete: String
    /// Seconds until both codes expire.
    public var expiresIn: Int
    /// Seconds the device waits between polls.
    public var interval: Int

    /// Creates an answer.
    public init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String,
        expiresIn: Int, interval: Int
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }

    /// An example with every member.
    public static let example = DeviceAuthorizationResponse(
        deviceCode: "umfa_dc_Zm9vYmFy", userCode: "WDJB-MJHT", verificationURI: "https://umfa.example/oidc/x/device",
        verificationURIComplete: "https://umfa.example/oidc/x/device?user_code=WDJB-MJHT", expiresIn: 600,
        interval: 5)
}

/// `POST /oidc/{application_id}/device/code`: the user code the person typed, in any case, with or
/// without its dash.
public struct DeviceCodeRequest: ContractBody, Equatable {
    /// The user code.
    public var userCode: String

    /// Creates a request.
    public init(userCode: String) { self.userCode = userCode }

    enum CodingKeys: String, CodingKey {
        case userCode = "user_code"
    }

    /// An example with every member.
    public static let example = DeviceCodeRequest(userCode: "wdjb mjht")
}

/// What a device asks for, shown to the person before they sign in and decide.
public struct DeviceCodeResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The client that asks: its registered name.
    public var clientName: String
    /// Whether the client registered itself (RFC 7591) rather than being the application's own:
    /// its name is then only its own claim.
    public var selfRegistered: Bool
    /// The scopes it asks for.
    public var scopes: [String]
    /// The user code as the device shows it (`XXXX-XXXX`).
    public var userCode: String

    /// Creates an answer.
    public init(traceID: String, clientName: String, selfRegistered: Bool, scopes: [String], userCode: String) {
        self.traceID = traceID
        self.clientName = clientName
        self.selfRegistered = selfRegistered
        self.scopes = scopes
        self.userCode = userCode
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case clientName = "client_name"
        case selfRegistered = "self_registered"
        case scopes
        case userCode = "user_code"
    }

    /// An example with every member.
    public static let example = DeviceCodeResponse(
        traceID: Examples.traceID, clientName: "Living-room TV", selfRegistered: false,
        scopes: ["openid", "profile"], userCode: "WDJB-MJHT")
}

/// `POST /oidc/{application_id}/device/decision`: the signed-in person's answer to a device.
public struct DeviceDecisionRequest: ContractBody, Equatable {
    /// The user code.
    public var userCode: String
    /// `true` approves: the device gets tokens for the person; `false` denies (`access_denied`).
    public var allow: Bool

    /// Creates a request.
    public init(userCode: String, allow: Bool) {
        self.userCode = userCode
        self.allow = allow
    }

    enum CodingKeys: String, CodingKey {
        case userCode = "user_code"
        case allow
    }

    /// An example with every member.
    public static let example = DeviceDecisionRequest(userCode: "WDJB-MJHT", allow: true)
}

/// The decision, as recorded.
public struct DeviceDecisionResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// `approved` or `denied`.
    public var decision: String

    /// Creates an answer.
    public init(traceID: String, decision: String) {
        self.traceID = traceID
        self.decision = decision
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case decision
    }

    /// An example with every member.
    public static let example = DeviceDecisionResponse(traceID: Examples.traceID, decision: "approved")
}

// MARK: - openapi.yaml

extension DeviceAuthorizationResponse: DocumentedFields {
    static let schemaDescription: String? = "RFC 8628 §3.2 device authorization response"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .deviceCode: FieldDoc("For the token endpoint's device_code grant; secret to the device")
        case .userCode:
            FieldDoc(
                "Eight letters of BCDFGHJKLMNPQRSTVWXZ shown as XXXX-XXXX; typed in any case, with or without the dash")
        case .verificationURI: FieldDoc("The hosted page <issuer>/device")
        case .verificationURIComplete: FieldDoc("The hosted page with user_code filled in (for a QR code)")
        case .expiresIn: FieldDoc("Seconds (600)")
        case .interval: FieldDoc("Seconds between polls (5); slow_down adds 5")
        }
    }
}

extension DeviceCodeRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .userCode: FieldDoc("The user code, any case, dash and spaces ignored", .maxLength(32))
        }
    }
}

extension DeviceCodeResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .clientName: FieldDoc("The client's registered name")
        case .selfRegistered: FieldDoc("true when the client registered itself (RFC 7591): its name is its own claim")
        case .scopes: FieldDoc("The scopes the device asks for")
        case .userCode: FieldDoc("The code as the device shows it")
        }
    }
}

extension DeviceDecisionRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .userCode: FieldDoc("The user code", .maxLength(32))
        case .allow: FieldDoc("true approves, false denies")
        }
    }
}

extension DeviceDecisionResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .decision: FieldDoc(nil, .enumeration(["approved", "denied"]))
        }
    }
}
