import UMFAEncoding

/// `PublicKeyCredential` in its JSON form (WebAuthn L3 §5.1, `toJSON()`): the shape
/// registration and authentication responses share, around the authenticator's response.
public struct PublicKeyCredentialJSON<AuthenticatorResponse>: Codable, Hashable, Sendable
where AuthenticatorResponse: Codable & Hashable & Sendable {
    /// The authenticator's response type.
    public typealias Response = AuthenticatorResponse

    /// The credential id, base64url.
    public var id: String
    /// The credential id.
    public var rawId: Base64URLBytes
    /// The authenticator's response.
    public var response: AuthenticatorResponse
    /// How the authenticator was attached.
    public var authenticatorAttachment: AuthenticatorAttachment?
    /// Client extension outputs.
    public var clientExtensionResults: [String: JSONValue]
    /// Always `public-key`.
    public var type: PublicKeyCredentialType

    /// Creates a credential whose `id` is the base64url form of `rawId`.
    public init(
        rawId: Base64URLBytes, response: AuthenticatorResponse,
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        clientExtensionResults: [String: JSONValue] = [:], type: PublicKeyCredentialType = .publicKey
    ) {
        self.id = rawId.base64URL
        self.rawId = rawId
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
        self.type = type
    }

    enum CodingKeys: String, CodingKey {
        case id, rawId, response, authenticatorAttachment, clientExtensionResults, type
    }

    /// Decodes the JSON form; a missing `clientExtensionResults` counts as empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        rawId = try container.decode(Base64URLBytes.self, forKey: .rawId)
        response = try container.decode(AuthenticatorResponse.self, forKey: .response)
        authenticatorAttachment = try container.decodeIfPresent(
            AuthenticatorAttachment.self, forKey: .authenticatorAttachment)
        clientExtensionResults =
            try container.decodeIfPresent([String: JSONValue].self, forKey: .clientExtensionResults) ?? [:]
        type = try container.decode(PublicKeyCredentialType.self, forKey: .type)
    }
}

/// `RegistrationResponseJSON` (WebAuthn L3 §5.1): a new credential as
/// `PublicKeyCredential.toJSON()` gives it after `navigator.credentials.create()`.
public typealias RegistrationResponseJSON = PublicKeyCredentialJSON<AttestationResponseJSON>

/// `AuthenticationResponseJSON` (WebAuthn L3 §5.1): an assertion as
/// `PublicKeyCredential.toJSON()` gives it after `navigator.credentials.get()`.
public typealias AuthenticationResponseJSON = PublicKeyCredentialJSON<AssertionResponseJSON>

/// `AuthenticatorAttestationResponseJSON`.
public struct AttestationResponseJSON: Codable, Hashable, Sendable {
    /// The client data, as the client serialised it.
    public var clientDataJSON: Base64URLBytes
    /// The attestation object (CBOR).
    public var attestationObject: Base64URLBytes
    /// The authenticator data, a convenience copy of what the attestation object holds.
    public var authenticatorData: Base64URLBytes?
    /// Transports the authenticator may be reached by.
    public var transports: [AuthenticatorTransport]?
    /// The credential public key as SubjectPublicKeyInfo, a convenience for the RP.
    public var publicKey: Base64URLBytes?
    /// The credential public key's COSE algorithm.
    public var publicKeyAlgorithm: Int?

    /// Creates a response.
    public init(
        clientDataJSON: Base64URLBytes, attestationObject: Base64URLBytes,
        authenticatorData: Base64URLBytes? = nil, transports: [AuthenticatorTransport]? = nil,
        publicKey: Base64URLBytes? = nil, publicKeyAlgorithm: Int? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
    }
}

/// `AuthenticatorAssertionResponseJSON`.
public struct AssertionResponseJSON: Codable, Hashable, Sendable {
    /// The client data, as the client serialised it.
    public var clientDataJSON: Base64URLBytes
    /// The authenticator data that was signed.
    public var authenticatorData: Base64URLBytes
    /// The assertion signature.
    public var signature: Base64URLBytes
    /// The user handle of a discoverable credential; clients may send it empty.
    public var userHandle: Base64URLBytes?

    /// Creates a response.
    public init(
        clientDataJSON: Base64URLBytes, authenticatorData: Base64URLBytes,
        signature: Base64URLBytes, userHandle: Base64URLBytes? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}
