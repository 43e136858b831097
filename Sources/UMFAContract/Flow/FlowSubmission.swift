import UMFAEncoding

/// The fields UMFA's flow forms carry (docs/contract.md §6), as one body: each form sends its own
/// subset, as JSON or URL-encoded. `credential` is the WebAuthn response JSON (an object, or
/// its JSON text in a URL-encoded form).
public struct FlowSubmission: ContractBody, Equatable {
    /// `passkey-sign-in` and `approve-on-another-device`: an email address or user id.
    public var username: String?
    /// `create-account`.
    public var email: String?
    /// `create-account`.
    public var givenName: String?
    /// `create-account`.
    public var familyName: String?
    /// `create-account`.
    public var phoneNumber: String?
    /// `create-account`: the passkey's name.
    public var deviceName: String?
    /// The continue form of a WebAuthn client operation.
    public var credential: JSONValue?
    /// The consent forms: `allow` or `deny`.
    public var decision: String?

    /// Creates a submission.
    public init(
        username: String? = nil, email: String? = nil, givenName: String? = nil, familyName: String? = nil,
        phoneNumber: String? = nil, deviceName: String? = nil, credential: JSONValue? = nil, decision: String? = nil
    ) {
        self.username = username
        self.email = email
        self.givenName = givenName
        self.familyName = familyName
        self.phoneNumber = phoneNumber
        self.deviceName = deviceName
        self.credential = credential
        self.decision = decision
    }

    enum CodingKeys: String, CodingKey {
        case username, email, credential, decision
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
        case deviceName = "device_name"
    }

    /// An example with every member.
    public static let example = FlowSubmission(
        username: "ada@example.com", email: "ada@example.com", givenName: "Ada", familyName: "Lovelace",
        phoneNumber: "+44 20 7946 0000", deviceName: "Ada's phone", credential: .object([:]), decision: "allow")
}

// MARK: - openapi.yaml

extension FlowSubmission: DocumentedFields {
    static let schemaDescription: String? =
        "The fields of the flow's forms; each form sends its own (JSON, or application/x-www-form-urlencoded with credential as JSON text)"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .username:
            FieldDoc(
                "passkey-sign-in, approve-on-another-device: an email address or user id; empty for a discoverable passkey or any device"
            )
        case .email: FieldDoc("create-account")
        case .credential:
            .written(["type": "object", "description": "The WebAuthn response JSON (PublicKeyCredential.toJSON())"])
        case .decision: FieldDoc(nil, .enumeration(["allow", "deny"]))
        case .givenName: .plain
        case .familyName: .plain
        case .phoneNumber: .plain
        case .deviceName: FieldDoc("The new passkey's name")
        }
    }
}
