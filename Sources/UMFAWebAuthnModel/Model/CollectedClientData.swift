import Foundation
import UMFAEncoding

/// `CollectedClientData` (WebAuthn L3 §5.8.1), parsed from `clientDataJSON`.
public struct CollectedClientData: Sendable, Hashable {
    /// The exact bytes received; their hash is what the authenticator signed.
    public let rawBytes: [UInt8]
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge, as the base64url text the client put there.
    public let challenge: String
    /// The caller's origin (web or native-app origin).
    public let origin: String
    /// The top-level origin, present when the ceremony ran in an iframe.
    public let topOrigin: String?
    /// Whether the caller was not same-origin with its ancestors.
    public let crossOrigin: Bool?
    /// Token binding status, which L3 no longer uses.
    public let tokenBindingStatus: String?

    /// The `type` of a registration ceremony.
    public static let createType = "webauthn.create"
    /// The `type` of an authentication ceremony.
    public static let getType = "webauthn.get"

    /// The values `TokenBindingStatus` may take (WebAuthn L3 §5.8.1).
    public static let tokenBindingStatuses: Set<String> = ["present", "supported"]

    /// Decodes and parses client data JSON, reporting both failures under `step`.
    ///
    /// A leading UTF-8 byte order mark is stripped, as UTF-8 decode does.
    public init(bytes: [UInt8], step: String? = nil) throws(WebAuthnError) {
        try self.init(bytes: bytes, decodeStep: step, parseStep: step)
    }

    /// Decodes and parses client data JSON: `decodeStep` is the UTF-8 decode (`7.1` step 5,
    /// `7.2` step 8), `parseStep` the JSON parse (`7.1` step 6, `7.2` step 9).
    ///
    /// A leading UTF-8 byte order mark is stripped, as UTF-8 decode does. A `tokenBinding`
    /// member, reserved since Level 3, is ignored unless it is an object whose `status` is not a
    /// `TokenBindingStatus` value, which is malformed.
    public init(bytes: [UInt8], decodeStep: String?, parseStep: String?) throws(WebAuthnError) {
        var body = bytes[...]
        if body.starts(with: [0xef, 0xbb, 0xbf]) { body = body.dropFirst(3) }
        guard String(validating: body, as: UTF8.self) != nil else {
            throw WebAuthnError(.malformedResponse, "clientDataJSON is not UTF-8", step: decodeStep)
        }
        // A NUL is never valid in JSON text; refusing it also keeps Foundation from taking
        // UTF-16 or UTF-32 bytes (which are valid UTF-8 with NULs) for JSON in another encoding.
        guard !body.contains(0) else {
            throw WebAuthnError(.malformedResponse, "clientDataJSON contains a NUL byte", step: parseStep)
        }
        if let members = ClientDataFastPath.read(body) {
            self.init(
                rawBytes: bytes, type: members.type, challenge: members.challenge, origin: members.origin,
                topOrigin: members.topOrigin, crossOrigin: members.crossOrigin, tokenBindingStatus: nil)
        } else {
            self = try Self.fullyParsed(rawBytes: bytes, body: body, parseStep: parseStep)
        }
    }

    private init(
        rawBytes: [UInt8], type: String, challenge: String, origin: String, topOrigin: String?, crossOrigin: Bool?,
        tokenBindingStatus: String?
    ) {
        self.rawBytes = rawBytes
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.topOrigin = topOrigin
        self.crossOrigin = crossOrigin
        self.tokenBindingStatus = tokenBindingStatus
    }

    /// The full parse, for every shape ``ClientDataFastPath`` does not take.
    package static func fullyParsed(rawBytes bytes: [UInt8], body: ArraySlice<UInt8>, parseStep: String?)
        throws(WebAuthnError) -> CollectedClientData
    {
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(body))
        } catch {
            throw WebAuthnError(
                .malformedResponse,
                "clientDataJSON is not a JSON object with string type, challenge and origin", step: parseStep)
        }
        var tokenBindingStatus: String?
        if let tokenBinding = fields.tokenBinding?.objectValue {
            guard let status = tokenBinding["status"]?.stringValue, Self.tokenBindingStatuses.contains(status) else {
                throw WebAuthnError(
                    .malformedResponse, "clientDataJSON tokenBinding.status is not \"present\" or \"supported\"",
                    step: parseStep)
            }
            tokenBindingStatus = status
        }
        return CollectedClientData(
            rawBytes: bytes, type: fields.type, challenge: fields.challenge, origin: fields.origin,
            topOrigin: fields.topOrigin, crossOrigin: fields.crossOrigin, tokenBindingStatus: tokenBindingStatus)
    }

    private struct Fields: Decodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var topOrigin: String?
        var tokenBinding: JSONValue?
    }
}
