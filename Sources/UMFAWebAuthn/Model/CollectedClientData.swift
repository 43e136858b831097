import Foundation

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

    /// Decodes and parses client data JSON (`7.1` steps 5–6, `7.2` steps 8–9).
    ///
    /// A leading UTF-8 byte order mark is stripped, as UTF-8 decode does.
    public init(bytes: [UInt8], step: String? = nil) throws(WebAuthnError) {
        var body = bytes[...]
        if body.starts(with: [0xef, 0xbb, 0xbf]) { body = body.dropFirst(3) }
        guard String(validating: body, as: UTF8.self) != nil else {
            throw WebAuthnError(.malformedResponse, "clientDataJSON is not UTF-8", step: step)
        }
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: Data(body))
        } catch {
            throw WebAuthnError(
                .malformedResponse,
                "clientDataJSON is not a JSON object with string type, challenge and origin", step: step)
        }
        self.rawBytes = bytes
        self.type = fields.type
        self.challenge = fields.challenge
        self.origin = fields.origin
        self.crossOrigin = fields.crossOrigin
        self.topOrigin = fields.topOrigin
        self.tokenBindingStatus = fields.tokenBinding?.status
    }

    private struct Fields: Decodable {
        struct TokenBinding: Decodable { var status: String? }
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var topOrigin: String?
        var tokenBinding: TokenBinding?
    }
}
