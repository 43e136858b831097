/// `POST /api/admin/applications/{id}/api-keys`: `{trace_id, api_key, key_id}`.
public struct APIKeyCreatedResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The new key, shown once (`umfa_ak_…`).
    public var apiKey: String
    /// The key's public id, for listing and deleting it.
    public var keyID: String

    /// Creates an answer.
    public init(traceID: String, apiKey: String, keyID: String) {
        self.traceID = traceID
        self.apiKey = apiKey
        self.keyID = keyID
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case apiKey = "api_key"
        case keyID = "key_id"
    }

    /// An example with every member.
    public static let example = APIKeyCreatedResponse(traceID: Examples.traceID, apiKey: "umfa_ak_x", keyID: "k1")
}

/// One API key of an application, without the key itself.
public struct APIKeySummary: Codable, Sendable, Equatable {
    /// The key's public id.
    public var keyID: String
    /// When it was created (RFC 3339).
    public var createdAt: String

    /// Creates a summary.
    public init(keyID: String, createdAt: String) {
        self.keyID = keyID
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case keyID = "key_id"
        case createdAt = "created_at"
    }
}

/// `GET /api/admin/applications/{id}/api-keys`: `{trace_id, api_keys}`.
public struct APIKeyListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The application's keys.
    public var apiKeys: [APIKeySummary]

    /// Creates an answer.
    public init(traceID: String, apiKeys: [APIKeySummary]) {
        self.traceID = traceID
        self.apiKeys = apiKeys
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case apiKeys = "api_keys"
    }

    /// An example with every member.
    public static let example = APIKeyListResponse(
        traceID: Examples.traceID, apiKeys: [APIKeySummary(keyID: "k1", createdAt: Examples.time)])
}

/// `POST /api/admin/signing-keys`: `{trace_id, kid, kids}` of the new signing keys, one of each
/// algorithm.
public struct SigningKeyRotatedResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The new RS256 key's id.
    public var kid: String
    /// Every new key's id by algorithm: `RS256`, `ES256`, `EdDSA`.
    public var kids: [String: String]

    /// Creates an answer.
    public init(traceID: String, kid: String, kids: [String: String]) {
        self.traceID = traceID
        self.kid = kid
        self.kids = kids
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case kid, kids
    }

    /// An example with every member.
    public static let example = SigningKeyRotatedResponse(
        traceID: Examples.traceID, kid: "k1", kids: ["RS256": "k1", "ES256": "k2", "EdDSA": "k3"])
}

/// `POST /api/admin/signing-keys` with a body: a key pair kept in a PKCS #11 token becomes the
/// signing key of one algorithm (docs/operators/hsm.md). Without a body, a new key of every
/// algorithm is made and stored sealed.
public struct SigningKeyRotationRequest: ContractBody, Equatable {
    /// The key's RFC 7512 URI, such as `pkcs11:token=umfa;object=es256`; without it (and `alg`),
    /// the request rotates every algorithm's sealed key, as an empty body does.
    public var pkcs11URI: String?
    /// `ES256` or `RS256`, with ``pkcs11URI``.
    public var alg: String?
    /// The request's trace id, or `nil`.
    public var traceID: String?

    /// Creates a request.
    public init(pkcs11URI: String? = nil, alg: String? = nil, traceID: String? = nil) {
        self.pkcs11URI = pkcs11URI
        self.alg = alg
        self.traceID = traceID
    }

    enum CodingKeys: String, CodingKey {
        case pkcs11URI = "pkcs11_uri"
        case alg
        case traceID = "trace_id"
    }

    /// An example with every member.
    public static let example = SigningKeyRotationRequest(
        pkcs11URI: "pkcs11:token=umfa;object=es256", alg: "ES256", traceID: Examples.traceID)
}

// MARK: - openapi.yaml

extension SigningKeyRotationRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .pkcs11URI:
            FieldDoc(
                "The key pair's PKCS #11 URI (RFC 7512): token (or serial, slot-id) and object (or id); never a PIN")
        case .alg: FieldDoc("The algorithm it signs for", .enumeration(["ES256", "RS256"]))
        case .traceID: .ref(.traceID)
        }
    }
}

extension APIKeyCreatedResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .apiKey: FieldDoc("The new key, shown once (umfa_ak_...)")
        case .keyID: FieldDoc("The key's public id, for listing and deleting it")
        }
    }
}

extension APIKeySummary: DocumentedFields {
    static let schemaDescription: String? = "One API key of an application, without the key itself"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .keyID: FieldDoc("The key's public id")
        case .createdAt: FieldDoc("When it was created (RFC 3339)", .format("date-time"))
        }
    }
}

extension APIKeyListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .apiKeys: .ref(APIKeySummary.self, "The application's keys")
        }
    }
}

extension SigningKeyRotatedResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .kid: FieldDoc("The new RS256 signing key's id (the kid of the JWKS and of new RS256 tokens)")
        case .kids:
            .written([
                "type": "object",
                "description":
                    "Every new key's id by algorithm (RS256, ES256, EdDSA); each retires the previous key of its algorithm",
                "additionalProperties": ["type": "string"],
            ])
        }
    }
}
