import HTTPTypes

extension HTTPField.Name {
    /// `DPoP` (RFC 9449 §4.1).
    static var dpop: HTTPField.Name { named("DPoP") }
    /// `DPoP-Nonce` (RFC 9449 §8.1).
    static var dpopNonce: HTTPField.Name { named("DPoP-Nonce") }

    /// A header name known to be a valid token; a typo would fall back to a name no client sends.
    static func named(_ name: String) -> HTTPField.Name {
        HTTPField.Name(name) ?? HTTPField.Name("X-Invalid-Header-Name") ?? .contentType
    }
}
