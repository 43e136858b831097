import Foundation
import UMFAEncoding
import UMFAJOSE

/// A request object (RFC 9101, OpenID Connect Core §6.1): the authorization request's parameters
/// as the claims of a JWT the client signed with one of its registered keys. The checks that
/// need only the token, the client's keys and the clock; the `jti` seen before is the caller's.
package struct RequestObject: Sendable {
    /// The authorization request's parameters, each as the text a query would carry (a number in
    /// decimal, an object such as `claims` as its JSON).
    package let parameters: [String: String]
    /// The object's unique id.
    package let jti: String
    /// When it expires.
    package let expiresAt: Date

    /// The media type of RFC 9101 §10.8's explicit typing (`typ`), which a client assertion may
    /// not carry.
    package static let type = "oauth-authz-req+jwt"

    /// The claims that describe the object itself, not the request.
    static let envelope: Set<String> = ["iss", "aud", "exp", "iat", "nbf", "jti", "sub"]

    /// Checks `text` as a request object of `clientID`, signed with a key of its `jwks`, for the
    /// issuer `issuer`.
    package init(_ text: String, clientID: String, jwks: String?, issuer: String, now: Date)
        throws(ClientAssertion.Failure)
    {
        // Step 1 (RFC 9101 §6.2): a JWS (a JWE or an unsecured JWT is refused), with no critical
        // header parameter UMFA does not know.
        guard let jwt = try? SignedJWT<JWTClaims>(text) else {
            throw ClientAssertion.Failure("the request object is not a signed JWT")
        }
        guard !jwt.header.members.contains("crit") else {
            throw ClientAssertion.Failure("the request object names critical header parameters")
        }
        // Step 2: signed with a key the client registered.
        guard let jwks else {
            throw ClientAssertion.Failure("the client registered no keys (jwks) to sign request objects with")
        }
        try ClientAssertion.checkSignature(jwt, jwks: jwks, of: "request object")
        // Step 3 (RFC 9101 §4, §10.2): from the client, for this issuer, short-lived, used once.
        let claims = jwt.claims
        guard claims.iss == clientID else {
            throw ClientAssertion.Failure("the request object's iss must be the client_id")
        }
        guard (claims.aud ?? []).contains(issuer) else {
            throw ClientAssertion.Failure("the request object's aud must be the issuer")
        }
        guard let exp = claims.exp else { throw ClientAssertion.Failure("the request object has no exp") }
        let time = now.timeIntervalSince1970
        guard exp > time else { throw ClientAssertion.Failure("the request object has expired") }
        guard exp <= time + ClientAssertion.longestLifetime + ClientAssertion.skew else {
            throw ClientAssertion.Failure(
                "the request object's exp is more than \(Int(ClientAssertion.longestLifetime)) s ahead")
        }
        if let nbf = claims.nbf, nbf > time + ClientAssertion.skew {
            throw ClientAssertion.Failure("the request object is not valid yet (nbf)")
        }
        if let iat = claims.iat, iat > time + ClientAssertion.skew {
            throw ClientAssertion.Failure("the request object was issued in the future")
        }
        guard let jti = claims.jti, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw ClientAssertion.Failure("the request object needs a jti of 1 to 256 bytes")
        }
        // Step 4 (§4): the parameters; client_id, when there, is the client's.
        guard let members = try? JSONDecoder().decode([String: JSONValue].self, from: Data(jwt.parts.payload)) else {
            throw ClientAssertion.Failure("the request object's claims are not a JSON object")
        }
        var parameters: [String: String] = [:]
        for (name, value) in members where !Self.envelope.contains(name) {
            guard let text = Self.text(value) else {
                throw ClientAssertion.Failure("the request object's \(name) is null")
            }
            parameters[name] = text
        }
        guard parameters["request"] == nil, parameters["request_uri"] == nil else {
            throw ClientAssertion.Failure("a request object cannot hold request or request_uri")
        }
        if let named = parameters["client_id"], !named.utf8.elementsEqual(clientID.utf8) {
            throw ClientAssertion.Failure("the request object's client_id is another client's")
        }
        parameters["client_id"] = clientID
        self.parameters = parameters
        self.jti = jti
        self.expiresAt = Date(timeIntervalSince1970: exp)
    }

    /// A claim as a query parameter's text.
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .null: return nil
        case .number(let number) where number == number.rounded() && abs(number) < 1e15:
            return String(Int64(number))
        default:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
        }
    }
}
