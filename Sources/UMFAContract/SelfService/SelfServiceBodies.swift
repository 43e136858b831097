import UMFAEncoding

/// One of the signed-in user's credentials as self-service shows it (docs/contract.md §8): never its
/// public key or attestation.
public struct MyCredential: Codable, Sendable, Equatable {
    /// The credential id, base64url.
    public var credentialID: String
    /// The name the user gave it, else the authenticator's (FIDO metadata or the provider table).
    public var name: String?
    /// The AAGUID, as a UUID string.
    public var aaguid: String
    /// The authenticator's name from FIDO metadata or the passkey-provider table.
    public var authenticatorName: String?
    /// When it was registered (RFC 3339).
    public var createdAt: String
    /// When it last signed in (RFC 3339).
    public var lastUsedAt: String?
    /// Whether it may be synced (backup eligible).
    public var backupEligible: Bool
    /// Whether it is synced now.
    public var backedUp: Bool
    /// The transports the authenticator named.
    public var transports: [String]
    /// Whether it signs in without a username (`credProps.rk`, WebAuthn L3 §10.1.3); `null`
    /// when the client did not say.
    public var discoverable: Bool?
    /// Whether it supports PRF (`prf.enabled`, WebAuthn L3 §10.1.4); `null` when the client did
    /// not say.
    public var prfEnabled: Bool?

    /// Creates a view.
    public init(
        credentialID: String, name: String?, aaguid: String, authenticatorName: String?, createdAt: String,
        lastUsedAt: String?, backupEligible: Bool, backedUp: Bool, transports: [String], discoverable: Bool? = nil,
        prfEnabled: Bool? = nil
    ) {
        self.discoverable = discoverable
        self.prfEnabled = prfEnabled
        self.credentialID = credentialID
        self.name = name
        self.aaguid = aaguid
        self.authenticatorName = authenticatorName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.transports = transports
    }

    enum CodingKeys: String, CodingKey {
        case credentialID = "credential_id"
        case name, aaguid
        case authenticatorName = "authenticator_name"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case backupEligible = "backup_eligible"
        case backedUp = "backed_up"
        case transports, discoverable
        case prfEnabled = "prf_enabled"
    }

    /// Encodes every member; `discoverable` and `prf_enabled` as `null` when unknown.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(credentialID, forKey: .credentialID)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(aaguid, forKey: .aaguid)
        try container.encodeIfPresent(authenticatorName, forKey: .authenticatorName)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(lastUsedAt, forKey: .lastUsedAt)
        try container.encode(backupEligible, forKey: .backupEligible)
        try container.encode(backedUp, forKey: .backedUp)
        try container.encode(transports, forKey: .transports)
        try container.encode(discoverable, forKey: .discoverable)
        try container.encode(prfEnabled, forKey: .prfEnabled)
    }

    static let example = MyCredential(
        credentialID: "AQIDBA", name: "Work laptop", aaguid: "bada5566-a7aa-401f-bd96-45619a55120d",
        authenticatorName: "1Password", createdAt: Examples.time, lastUsedAt: Examples.time, backupEligible: true,
        backedUp: true, transports: ["internal", "hybrid"], discoverable: true, prfEnabled: true)
}

/// `GET /api/umfa/me/credentials`.
public struct MyCredentialListResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The user's credentials, oldest first.
    public var credentials: [MyCredential]
    /// The user's WebAuthn user handle, base64url: what a page passes to the WebAuthn Signal API
    /// (`signalAllAcceptedCredentials`, `signalCurrentUserDetails`) as `userId`.
    public var userHandle: String

    /// Creates an answer.
    public init(traceID: String, credentials: [MyCredential], userHandle: String) {
        self.traceID = traceID
        self.credentials = credentials
        self.userHandle = userHandle
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case credentials
        case userHandle = "user_handle"
    }

    /// An example with every member.
    public static let example = MyCredentialListResponse(
        traceID: Examples.traceID, credentials: [.example], userHandle: "AQIDBA")
}

/// `PATCH /api/umfa/me/credentials/{credential_id}`: `{name}` (1–64 characters; `null` goes back
/// to the authenticator's name).
public struct RenameCredentialRequest: ContractBody, Equatable {
    /// The new name.
    public var name: String?

    /// Creates a request.
    public init(name: String?) { self.name = name }

    /// An example with every member.
    public static let example = RenameCredentialRequest(name: "Work laptop")

    enum CodingKeys: String, CodingKey {
        case name
    }
}

/// A credential with the request's trace id, its members at the top level.
public struct MyCredentialResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// The credential.
    public var credential: MyCredential

    /// Creates an answer.
    public init(traceID: String, credential: MyCredential) {
        self.traceID = traceID
        self.credential = credential
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
    }

    /// Decodes the flat object.
    public init(from decoder: any Decoder) throws {
        credential = try MyCredential(from: decoder)
        traceID = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .traceID)
    }

    /// Encodes the flat object.
    public func encode(to encoder: any Encoder) throws {
        try credential.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(traceID, forKey: .traceID)
    }

    /// An example with every member.
    public static let example = MyCredentialResponse(traceID: Examples.traceID, credential: .example)
}

/// New recovery codes, shown this once (stored hashed; they replace earlier ones).
public struct RecoveryCodesResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// Ten codes, each good once.
    public var recoveryCodes: [String]

    /// Creates an answer.
    public init(traceID: String, recoveryCodes: [String]) {
        self.traceID = traceID
        self.recoveryCodes = recoveryCodes
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case recoveryCodes = "recovery_codes"
    }

    /// An example with every member.
    public static let example = RecoveryCodesResponse(traceID: Examples.traceID, recoveryCodes: ["ABCD-EFGH-JKMN-PQRS"])
}

/// `GET /api/umfa/me/recovery-codes`: how many are left.
public struct RecoveryCodeCountResponse: ContractBody, TraceCarrying, Equatable {
    /// The request's trace id.
    public var traceID: String
    /// Unused codes.
    public var remaining: Int

    /// Creates an answer.
    public init(traceID: String, remaining: Int) {
        self.traceID = traceID
        self.remaining = remaining
    }

    enum CodingKeys: String, CodingKey {
        case traceID = "trace_id"
        case remaining
    }

    /// An example with every member.
    public static let example = RecoveryCodeCountResponse(traceID: Examples.traceID, remaining: 9)
}

/// `POST /api/umfa/recovery`: a recovery code for an enrollment token.
public struct RecoveryRequest: ContractBody, Equatable {
    /// The application.
    public var applicationID: String
    /// The application's user id.
    public var userID: String
    /// One of the user's recovery codes (case and dashes do not matter).
    public var recoveryCode: String

    /// Creates a request.
    public init(applicationID: String, userID: String, recoveryCode: String) {
        self.applicationID = applicationID
        self.userID = userID
        self.recoveryCode = recoveryCode
    }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
        case userID = "user_id"
        case recoveryCode = "recovery_code"
    }

    /// An example with every member.
    public static let example = RecoveryRequest(
        applicationID: Examples.applicationID, userID: "alice", recoveryCode: "ABCD-EFGH-JKMN-PQRS")
}

/// `POST /api/umfa/users/{user_id}/recovery-codes` (API key): the backend issues codes.
public struct UserRecoveryCodesRequest: ContractBody, Equatable {
    /// The application.
    public var applicationID: String

    /// Creates a request.
    public init(applicationID: String) { self.applicationID = applicationID }

    enum CodingKeys: String, CodingKey {
        case applicationID = "application_id"
    }

    /// An example with every member.
    public static let example = UserRecoveryCodesRequest(applicationID: Examples.applicationID)
}

// MARK: - openapi.yaml

extension MyCredential: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .credentialID: .plain
        case .name: FieldDoc("The name the user gave it, else the authenticator's", .nullable("string"))
        case .aaguid: .plain
        case .authenticatorName: FieldDoc("FIDO metadata or the passkey-provider table", .nullable("string"))
        case .createdAt: FieldDoc(nil, .format("date-time"))
        case .lastUsedAt: FieldDoc(nil, .nullable("string"), .format("date-time"))
        case .backupEligible: .plain
        case .backedUp: .plain
        case .transports: .plain
        case .discoverable:
            FieldDoc("Whether it signs in without a username (credProps.rk); null when unknown", .nullable("boolean"))
        case .prfEnabled: FieldDoc("Whether it supports PRF (prf.enabled); null when unknown", .nullable("boolean"))
        }
    }
}

extension MyCredentialListResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .credentials: .ref(MyCredential.self)
        case .userHandle: FieldDoc("The WebAuthn user handle, base64url: userId for the WebAuthn Signal API")
        }
    }
}

extension RenameCredentialRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .name:
            FieldDoc("null goes back to the authenticator's name", .nullable("string"), .minLength(1), .maxLength(64))
        }
    }
}

extension MyCredentialResponse: DocumentedFields {
    static var membersAlsoFrom: [any DocumentedSchema.Type] { [MyCredential.self] }

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        }
    }
}

extension RecoveryCodesResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .recoveryCodes: FieldDoc("Ten codes, shown once, each good once; they replace earlier ones")
        }
    }
}

extension RecoveryCodeCountResponse: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .traceID: .ref(.echoedTraceID)
        case .remaining: .plain
        }
    }
}

extension RecoveryRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        case .userID: .ref(.userID)
        case .recoveryCode: FieldDoc("Case and dashes do not matter", .maxLength(64))
        }
    }
}

extension UserRecoveryCodesRequest: DocumentedFields {
    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .applicationID: .ref(.applicationID)
        }
    }
}
