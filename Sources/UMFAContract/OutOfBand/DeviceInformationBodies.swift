/// `POST /api/umfa/device-information`, with a device proof: the name and push-service token
/// (APNs, FCM) a device registered with its out-of-band enrollment, changed after it (a new
/// push token). docs/out-of-band.md.
public struct DeviceInformationRequest: ContractBody, Equatable {
    /// The application.
    public var applicationID: String
    /// The user whose enrollment on this device it is (the device key's credential must be theirs).
    public var userID: String
    /// The device's name.
    public var name: String
    /// The push-service token; absent removes the one kept.
    public var pushToken: String?

    /// Creates a request.
    public init(applicationID: String, userID: String, name: String, pushToken: String? = nil) {
        self.applicationID = applicationID
        self.userID = userID
        self.name = name
        self.pushToken = pushToken
    }

    enum CodingKeys: String, CodingKey {
        case name
        case applicationID = "application_id"
        case userID = "user_id"
        case pushToken = "push_token"
    }

    /// An example with every member.
    public static let example = DeviceInformationRequest(
        applicationID: Examples.applicationID, userID: "alice", name: "Alice's phone", pushToken: "apns-token")
}

/// The answer of `POST /api/umfa/device-information`: the device information now kept.
public struct DeviceInformationResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The credential whose device key proved the request, base64url.
    public var credentialID: String
    /// The device's name.
    public var name: String
    /// The push-service token, if one is kept.
    public var pushToken: String?

    /// Creates an answer.
    public init(traceID: String, credentialID: String, name: String, pushToken: String?) {
        self.traceID = traceID
        self.credentialID = credentialID
        self.name = name
        self.pushToken = pushToken
    }

    enum CodingKeys: String, CodingKey {
        case name
        case traceID = "trace_id"
        case credentialID = "credential_id"
        case pushToken = "push_token"
    }

    /// An example with every member.
    public static let example = DeviceInformationResponse(
        traceID: Examples.traceID, credentialID: "AQID", name: "Alice's phone", pushToken: "apns-token")
}

// MARK: - openapi.yaml

extension DeviceInformationRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .name: FieldDoc(nil, .maxLength(128))
        case .applicationID: .ref(.applicationID)
        case .userID: .ref(.userID)
        case .pushToken: FieldDoc("The push-service token (APNs, FCM); absent removes the one kept", .maxLength(4096))
        }
    }
}

extension DeviceInformationResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .name: .plain
        case .traceID: .ref(.echoedTraceID)
        case .credentialID: .plain
        case .pushToken: .plain
        }
    }
}
