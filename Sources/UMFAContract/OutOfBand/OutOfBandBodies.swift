import UMFAEncoding

// docs/contract.md §7. Answers use the Nevis Authentication Cloud's member names (camelCase), which
// SDKs parse as they are; requests use UMFA's (snake_case).

/// A QR code of an app link: a PNG as a data URI.
public struct QRCodeImage: Codable, Sendable, Equatable {
    /// `image/png`.
    public var type: String
    /// The image's width and height in pixels.
    public var size: Int
    /// `data:image/png;base64,…`.
    public var dataUri: String

    /// Creates an image.
    public init(type: String = "image/png", size: Int, dataUri: String) {
        self.type = type
        self.size = size
        self.dataUri = dataUri
    }

    static let example = QRCodeImage(size: 164, dataUri: "data:image/png;base64,iVBORw0KGgo=")

    enum CodingKeys: String, CodingKey {
        case type, size, dataUri
    }
}

/// `POST /api/umfa/users/enroll`.
public struct OutOfBandEnrollRequest: ContractBody, Equatable {
    /// The application, a UUID.
    public var applicationID: String
    /// The user to enroll.
    public var userID: String
    /// The name the passkey manager shows; the user id by default.
    public var username: String?
    /// The display name for a new user.
    public var displayName: String?
    /// How long the phone has, 60 to 3600 seconds (default 600).
    public var ttlSeconds: Int?

    /// Creates a request.
    public init(
        applicationID: String, userID: String, username: String? = nil, displayName: String? = nil,
        ttlSeconds: Int? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.username = username
        self.displayName = displayName
        self.ttlSeconds = ttlSeconds
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case username
        case displayName = "display_name"
        case ttlSeconds = "ttl_seconds"
    }

    /// An example with every member.
    public static let example = OutOfBandEnrollRequest(
        applicationID: Examples.applicationID, userID: "alice", username: "alice@example.com", displayName: "Alice",
        ttlSeconds: 600)
}

/// One of the user's passkeys, as the enroll answer lists them.
public struct OutOfBandAuthenticator: Codable, Sendable, Equatable {
    /// The credential, base64url.
    public var credentialId: String
    /// Its name.
    public var name: String?
    /// When it was created (RFC 3339).
    public var createdAt: String
    /// When it last signed in (RFC 3339).
    public var lastUsedAt: String?
    /// The authenticator's AAGUID.
    public var aaguid: String

    /// Creates a view.
    public init(credentialId: String, name: String?, createdAt: String, lastUsedAt: String?, aaguid: String) {
        self.credentialId = credentialId
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.aaguid = aaguid
    }

    static let example = OutOfBandAuthenticator(
        credentialId: "AQIDBA", name: "Phone", createdAt: Examples.time, lastUsedAt: Examples.time,
        aaguid: "00000000-0000-0000-0000-000000000000")
}

/// The transaction an enrollment started.
public struct OutOfBandEnrollment: Codable, Sendable, Equatable {
    /// The transaction's id.
    public var transactionId: String
    /// What the backend polls `POST /api/umfa/status` with.
    public var statusToken: String
    /// The app link as a QR code.
    public var qrCode: QRCodeImage
    /// `<public URL>/open?dispatchTokenResponse=<payload>`.
    public var appLinkUri: String

    /// Creates a view.
    public init(transactionId: String, statusToken: String, qrCode: QRCodeImage, appLinkUri: String) {
        self.transactionId = transactionId
        self.statusToken = statusToken
        self.qrCode = qrCode
        self.appLinkUri = appLinkUri
    }

    static let example = OutOfBandEnrollment(
        transactionId: "tx_1", statusToken: "umfa_st_…", qrCode: .example,
        appLinkUri: "https://umfa.example/open?dispatchTokenResponse=eyJ2ZXJzaW9uIjox")
}

/// The answer of `POST /api/umfa/users/enroll`.
public struct OutOfBandEnrollResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The user.
    public var userId: String
    /// The name the passkey manager shows.
    public var username: String
    /// `new` (no passkey yet) or `registered`.
    public var status: String
    /// When it was created (RFC 3339).
    public var createdAt: String
    /// When it last changed (RFC 3339).
    public var updatedAt: String
    /// The user's passkeys so far.
    public var authenticators: [OutOfBandAuthenticator]
    /// The enrollment transaction.
    public var enrollment: OutOfBandEnrollment

    /// Creates an answer.
    public init(
        traceID: String, userId: String, username: String, status: String, createdAt: String, updatedAt: String,
        authenticators: [OutOfBandAuthenticator], enrollment: OutOfBandEnrollment
    ) {
        self.traceID = traceID
        self.userId = userId
        self.username = username
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.authenticators = authenticators
        self.enrollment = enrollment
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case userId, username, status, createdAt, updatedAt, authenticators, enrollment
    }

    /// An example with every member.
    public static let example = OutOfBandEnrollResponse(
        traceID: Examples.traceID, userId: "alice", username: "alice@example.com", status: "registered",
        createdAt: Examples.time, updatedAt: Examples.time, authenticators: [.example], enrollment: .example)
}

/// `POST /api/umfa/approvals`.
public struct ApprovalRequest: ContractBody, Equatable {
    /// The application, a UUID.
    public var applicationID: String
    /// The user who must approve; absent, whoever approves (by QR code, usernameless).
    public var userID: String?
    /// What the user is asked to approve, at most 500 characters.
    public var message: String?
    /// Whether the user must type the number this answer shows.
    public var numberMatching: Bool?
    /// How long the phone has, 60 to 3600 seconds (default 300).
    public var ttlSeconds: Int?
    /// What is approved, as RFC 9396 `authorization_details` of the types the application declares;
    /// shown on the phone in their canonical text and signed with the message (docs/ciba.md).
    public var authorizationDetails: JSONValue?

    /// Creates a request.
    public init(
        applicationID: String, userID: String? = nil, message: String? = nil, numberMatching: Bool? = nil,
        ttlSeconds: Int? = nil, authorizationDetails: JSONValue? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.message = message
        self.numberMatching = numberMatching
        self.ttlSeconds = ttlSeconds
        self.authorizationDetails = authorizationDetails
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case message
        case numberMatching = "number_matching"
        case ttlSeconds = "ttl_seconds"
        case authorizationDetails = "authorization_details"
    }

    /// An example with every member.
    public static let example = ApprovalRequest(
        applicationID: Examples.applicationID, userID: "alice", message: "Pay 120.00 EUR to Shop", numberMatching: true,
        ttlSeconds: 300,
        authorizationDetails: .array([
            .object([
                "type": .string("payment_initiation"),
                "instructedAmount": .object(["currency": .string("EUR"), "amount": .string("120.00")]),
                "creditorName": .string("Shop"),
            ])
        ]))
}

/// The answer of `POST /api/umfa/approvals` (201).
public struct ApprovalResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The transaction's id.
    public var transactionId: String
    /// What the backend polls the status with.
    public var statusToken: String
    /// The app link as a QR code.
    public var qrCode: QRCodeImage
    /// The app link the QR code carries.
    public var appLinkUri: String
    /// The number to show beside the QR code, with number matching.
    public var matchingNumber: String?

    /// Creates an answer.
    public init(
        traceID: String, transactionId: String, statusToken: String, qrCode: QRCodeImage, appLinkUri: String,
        matchingNumber: String?
    ) {
        self.traceID = traceID
        self.transactionId = transactionId
        self.statusToken = statusToken
        self.qrCode = qrCode
        self.appLinkUri = appLinkUri
        self.matchingNumber = matchingNumber
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case transactionId, statusToken, qrCode, appLinkUri, matchingNumber
    }

    /// An example with every member.
    public static let example = ApprovalResponse(
        traceID: Examples.traceID, transactionId: "tx_1", statusToken: "umfa_st_…", qrCode: .example,
        appLinkUri: "https://umfa.example/open?dispatchTokenResponse=eyJ2ZXJzaW9uIjox", matchingNumber: "42")
}

/// `POST /api/umfa/status`.
public struct StatusRequest: ContractBody, Equatable {
    /// What the backend polls the status with.
    public var statusToken: String

    /// Creates a request.
    public init(statusToken: String) { self.statusToken = statusToken }

    /// An example with every member.
    public static let example = StatusRequest(statusToken: "umfa_st_…")

    enum CodingKeys: String, CodingKey {
        case statusToken
    }
}

/// The answer of `POST /api/umfa/status`.
public struct StatusResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The transaction's id.
    public var transactionId: String
    /// `pending`, `succeeded`, `denied`, `failed` or `expired`.
    public var status: String
    /// The user, once known (an approval by QR code learns it when someone approves).
    public var userId: String?
    /// The name the passkey manager shows.
    public var username: String?
    /// The UMFA login token, once it succeeded.
    public var token: String?
    /// When it was created (RFC 3339).
    public var createdAt: String
    /// When its status last changed (RFC 3339).
    public var lastUpdatedAt: String
    /// For an approval the passkey decided, the signed decision and its assertion, to keep.
    public var evidence: ApprovalEvidence?

    /// Creates an answer.
    public init(
        traceID: String, transactionId: String, status: String, userId: String?, username: String?, token: String?,
        createdAt: String, lastUpdatedAt: String, evidence: ApprovalEvidence? = nil
    ) {
        self.traceID = traceID
        self.transactionId = transactionId
        self.status = status
        self.userId = userId
        self.username = username
        self.token = token
        self.createdAt = createdAt
        self.lastUpdatedAt = lastUpdatedAt
        self.evidence = evidence
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case transactionId, status, userId, username, token, createdAt, lastUpdatedAt, evidence
    }

    /// An example with every member.
    public static let example = StatusResponse(
        traceID: Examples.traceID, transactionId: "tx_1", status: "succeeded", userId: "alice",
        username: "alice", token: "eyJ…", createdAt: Examples.time, lastUpdatedAt: Examples.time,
        evidence: .example)
}

/// `POST /api/umfa/dispatch/redeem`.
public struct DispatchRedeemRequest: ContractBody, Equatable {
    /// The dispatch token (`umfa_dt_…`) from the app link.
    public var token: String

    /// Creates a request.
    public init(token: String) { self.token = token }

    /// An example with every member.
    public static let example = DispatchRedeemRequest(token: "umfa_dt_…")

    enum CodingKeys: String, CodingKey {
        case token
    }
}

/// The answer of `POST /api/umfa/dispatch/redeem`: the ceremony the phone must run.
public struct DispatchRedeemResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// `registration` or `authentication`.
    public var operation: String
    /// The application.
    public var applicationID: String
    /// The user.
    public var userID: String?
    /// The transaction's id.
    public var transactionID: String
    /// Creation options (registration) or request options (authentication), WebAuthn JSON.
    public var publicKey: JSONValue
    /// What the user approves.
    public var message: String?
    /// The random bytes of the approval's challenge, base64url: the phone recomputes
    /// `SHA-256("UMFA approval v1" ‖ 0 ‖ transaction id ‖ 0 ‖ message ‖ 0 ‖ nonce)` and refuses a
    /// mismatch, then signs the decision's challenge (`ApprovalChallenge.decision`).
    public var approvalNonce: String?
    /// Whether the user must type the number the other channel shows.
    public var matching: Bool?
    /// What an approval authorizes, as the request gave it (RFC 9396 `authorization_details`), for
    /// the app to show in its own way; `message` already ends with its canonical text, which the
    /// challenge covers (docs/ciba.md).
    public var authorizationDetails: JSONValue?

    /// Creates an answer.
    public init(
        traceID: String, operation: String, applicationID: String, userID: String?, transactionID: String,
        publicKey: JSONValue, message: String?, approvalNonce: String?, matching: Bool?,
        authorizationDetails: JSONValue? = nil
    ) {
        self.traceID = traceID
        self.operation = operation
        self.applicationID = applicationID
        self.userID = userID
        self.transactionID = transactionID
        self.publicKey = publicKey
        self.message = message
        self.approvalNonce = approvalNonce
        self.matching = matching
        self.authorizationDetails = authorizationDetails
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case operation
        case applicationID = "application_id"
        case userID = "user_id"
        case transactionID = "transaction_id"
        case publicKey, message
        case approvalNonce = "approval_nonce"
        case matching
        case authorizationDetails = "authorization_details"
    }

    /// An example with every member.
    public static let example = DispatchRedeemResponse(
        traceID: Examples.traceID, operation: "authentication", applicationID: Examples.applicationID, userID: "alice",
        transactionID: "tx_1", publicKey: .object(["challenge": .string("AQIDBA")]), message: "Pay 120.00 EUR",
        approvalNonce: "AQIDBA", matching: true)
}

/// The phone's device, as it names itself at enrollment.
public struct DispatchDevice: Codable, Sendable, Equatable {
    /// The device's name, for credential lists.
    public var name: String
    /// A push token (APNs, FCM) for later approvals.
    public var pushToken: String?
    /// The device key: a P-256 public JWK whose private half signs the device's proofs
    /// (`POST /api/umfa/approvals/pending`, the approval event stream).
    public var key: JSONValue?

    /// Creates a device.
    public init(name: String, pushToken: String? = nil, key: JSONValue? = nil) {
        self.name = name
        self.pushToken = pushToken
        self.key = key
    }

    enum CodingKeys: String, CodingKey {
        case name, key
        case pushToken = "push_token"
    }
}

/// `POST /api/umfa/dispatch/complete`.
public struct DispatchCompleteRequest: ContractBody, Equatable {
    /// The transaction's id.
    public var transactionID: String
    /// RegistrationResponseJSON or AuthenticationResponseJSON, as the operation needs.
    public var credential: JSONValue
    /// `approve` (default) or `deny`, for approvals.
    public var decision: String?
    /// The number the user typed, with number matching.
    public var matchingNumber: String?
    /// The phone, as it names itself.
    public var device: DispatchDevice?

    /// Creates a request.
    public init(
        transactionID: String, credential: JSONValue, decision: String? = nil, matchingNumber: String? = nil,
        device: DispatchDevice? = nil
    ) {
        self.transactionID = transactionID
        self.credential = credential
        self.decision = decision
        self.matchingNumber = matchingNumber
        self.device = device
    }

    enum CodingKeys: String, CodingKey {
        case transactionID = "transaction_id"
        case credential, decision
        case matchingNumber = "matching_number"
        case device
    }

    /// An example with every member.
    public static let example = DispatchCompleteRequest(
        transactionID: "tx_1", credential: .object(["id": .string("AQIDBA")]), decision: "approve",
        matchingNumber: "42",
        device: DispatchDevice(
            name: "Phone", pushToken: "apns-token",
            key: .object([
                "kty": .string("EC"), "crv": .string("P-256"), "x": .string("AQIDBA"), "y": .string("AQIDBA"),
            ])))
}

/// The answer of `POST /api/umfa/dispatch/complete`.
public struct DispatchCompleteResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The transaction's status now.
    public var status: String
    /// The user.
    public var userID: String
    /// The credential.
    public var credentialID: String

    /// Creates an answer.
    public init(traceID: String, status: String, userID: String, credentialID: String) {
        self.traceID = traceID
        self.status = status
        self.userID = userID
        self.credentialID = credentialID
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case status
        case userID = "user_id"
        case credentialID = "credential_id"
    }

    /// An example with every member.
    public static let example = DispatchCompleteResponse(
        traceID: Examples.traceID, status: "succeeded", userID: "alice", credentialID: "AQIDBA")
}

// MARK: - openapi.yaml

extension QRCodeImage: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .type: FieldDoc(nil, .enumeration(["image/png"]))
        case .size: FieldDoc("Width and height in pixels")
        case .dataUri: FieldDoc("data:image/png;base64,… of the app link (UMFA's QR encoder, error correction M)")
        }
    }
}

extension OutOfBandEnrollRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID: .ref(.userID)
        case .username: FieldDoc(nil, .maxLength(256))
        case .displayName: FieldDoc(nil, .maxLength(256))
        case .ttlSeconds: FieldDoc("Default 600", .minimum(60), .maximum(3600))
        }
    }
}

extension OutOfBandEnrollResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .userId: .plain
        case .username: .plain
        case .status: FieldDoc(nil, .enumeration(["new", "registered"]))
        case .createdAt: FieldDoc(nil, .format("date-time"))
        case .updatedAt: FieldDoc(nil, .format("date-time"))
        case .authenticators:
            .written([
                "type": "array",
                "items": [
                    "type": "object", "required": ["credentialId", "createdAt", "aaguid"],
                    "properties": [
                        "credentialId": ["type": "string"], "name": ["type": "string"],
                        "createdAt": ["type": "string", "format": "date-time"],
                        "lastUsedAt": ["type": "string", "format": "date-time"], "aaguid": ["type": "string"],
                    ],
                ],
            ])
        case .enrollment:
            .written([
                "type": "object", "required": ["transactionId", "statusToken", "qrCode", "appLinkUri"],
                "properties": [
                    "transactionId": ["type": "string"], "statusToken": ["type": "string"],
                    "qrCode": ["$ref": "#/components/schemas/QRCodeImage"],
                    "appLinkUri": [
                        "type": "string", "description": "<public URL>/open?dispatchTokenResponse=<base64url JSON>",
                    ],
                ],
            ])
        }
    }
}

extension ApprovalRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID: .ref(.userID)
        case .message: FieldDoc("Shown to the user and bound into the signed challenge", .maxLength(500))
        case .numberMatching: .plain
        case .ttlSeconds: FieldDoc("Default 300", .minimum(60), .maximum(3600))
        case .authorizationDetails:
            .written([
                "type": "array", "items": ["type": "object", "required": ["type"]],
                "description":
                    "RFC 9396 authorization_details of the application's declared types (authorization_details_types); the phone shows their canonical text (docs/ciba.md), which the signed challenge covers",
            ])
        }
    }
}

extension ApprovalResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .transactionId: .plain
        case .statusToken: .plain
        case .qrCode: .ref(QRCodeImage.self)
        case .appLinkUri: .plain
        case .matchingNumber: FieldDoc("Show it beside the QR code; the user types it on the phone")
        }
    }
}

extension StatusRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .statusToken: .plain
        }
    }
}

extension StatusResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .transactionId: .plain
        case .status: FieldDoc(nil, .enumeration(["pending", "succeeded", "denied", "failed", "expired"]))
        case .userId: .plain
        case .username: .plain
        case .token: FieldDoc("The UMFA login token, once it succeeded")
        case .createdAt: FieldDoc(nil, .format("date-time"))
        case .lastUpdatedAt: FieldDoc(nil, .format("date-time"))
        case .evidence:
            .written([
                "type": "object",
                "description":
                    "An approval the passkey decided: decision and matchingNumber as signed, credentialId, challenge (the decision's), transactionChallenge and approvalNonce it derives from (docs/ciba.md), clientDataJSON, authenticatorData and signature, base64url; keep it to prove the decision",
                "required": [
                    "decision", "credentialId", "challenge", "transactionChallenge", "approvalNonce", "clientDataJSON",
                    "authenticatorData", "signature",
                ],
                "properties": [
                    "decision": ["type": "string", "enum": ["approve", "deny"]],
                    "matchingNumber": ["type": "string"], "credentialId": ["type": "string"],
                    "challenge": ["type": "string"], "transactionChallenge": ["type": "string"],
                    "approvalNonce": ["type": "string"], "clientDataJSON": ["type": "string"],
                    "authenticatorData": ["type": "string"], "signature": ["type": "string"],
                ],
            ])
        }
    }
}

extension DispatchRedeemRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .token: FieldDoc("The umfa_dt_ token of the app link; it works once")
        }
    }
}

extension DispatchRedeemResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .operation: FieldDoc(nil, .enumeration(["registration", "authentication"]))
        case .applicationID: FieldDoc(nil, .format("uuid"))
        case .userID: .plain
        case .transactionID: .plain
        case .publicKey: .written(["type": "object", "description": "Creation or request options, WebAuthn JSON"])
        case .message: .plain
        case .approvalNonce:
            FieldDoc(
                "base64url; the challenge is SHA-256(\"UMFA approval v1\" 0 transaction_id 0 message 0 nonce); the passkey signs SHA-256(\"UMFA approval decision v1\" 0 challenge 0 decision 0 matching_number)"
            )
        case .matching: .plain
        case .authorizationDetails:
            .written([
                "type": "array", "items": ["type": "object"],
                "description":
                    "What the approval authorizes (RFC 9396), for the app's own display; message already ends with its canonical text",
            ])
        }
    }
}

extension DispatchCompleteRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .transactionID: .plain
        case .credential:
            .written(["type": "object", "description": "RegistrationResponseJSON or AuthenticationResponseJSON"])
        case .decision: FieldDoc(nil, .enumeration(["approve", "deny"]))
        case .matchingNumber: .plain
        case .device:
            .written([
                "type": "object", "required": ["name"],
                "properties": [
                    "name": ["type": "string"], "push_token": ["type": "string"],
                    "key": [
                        "type": "object",
                        "description":
                            "The device key, a P-256 public JWK (kty, crv, x, y) whose private half signs device proofs",
                    ],
                ],
            ])
        }
    }
}

extension DispatchCompleteResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .status: FieldDoc(nil, .enumeration(["pending", "succeeded", "denied", "failed", "expired"]))
        case .userID: .plain
        case .credentialID: .plain
        }
    }
}
