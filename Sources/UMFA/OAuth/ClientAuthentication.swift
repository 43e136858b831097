import Crypto
import Foundation
import UMFAEncoding
import UMFAJOSE
import UMFAWebAuthnModel

/// How an OAuth client proves itself at the token endpoint (RFC 6749 §2.3, RFC 7523).
public enum ClientAuthentication: Sendable {
    /// A public client: `client_id` only (PKCE protects the code).
    case none
    /// `client_secret_basic`: the secret in HTTP Basic.
    case secret(String)
    /// `private_key_jwt`: an ES256 assertion signed with the client's registered key.
    case privateKeyJWT(P256.Signing.PrivateKey, keyID: String? = nil)
    /// `client_secret_jwt`: an HS256 assertion keyed with the client secret.
    case symmetricJWT(secret: String)
    /// A client attestation for the flow token (docs/contract.md §6): the app answers the server's
    /// challenge with an App Attest attestation or an Android key-attestation chain. A closure
    /// that throws (the device cannot attest) or an attestation the server refuses makes the
    /// token manager register a client from the configuration's DCR template.
    case attestation(@Sendable (_ challenge: String) async throws -> ClientAttestation)

    /// What `case .attestation` answers: the assertion type and the attestation itself.
    public struct ClientAttestation: Sendable {
        /// `urn:umfa:client-attestation:apple-app-attest` or `…:android-key`.
        public var type: String
        /// The attestation object, or the chain, base64url, joined by `.`.
        public var assertion: String

        /// Creates an attestation.
        public init(type: String, assertion: String) {
            self.type = type
            self.assertion = assertion
        }
    }

    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// An attestation proves the app for the flow token only (docs/contract.md §6); every other request
    /// of an attested public client names it by `client_id` alone.
    var outsideFlowToken: ClientAuthentication {
        if case .attestation = self { return .none }
        return self
    }

    /// Adds this authentication to a request of `clientID`; an assertion's audience is
    /// `tokenEndpoint` (RFC 7523 §3, at the revocation endpoint too) and its times `now`. An
    /// attestation goes with the challenge it answers (`attested`, made by the token manager).
    func apply(
        clientID: String, tokenEndpoint: URL, now: Date, form: inout [String: String],
        headers: inout [String: String], attested: (challenge: String, attestation: ClientAttestation)? = nil
    ) throws(ZSMError) {
        form["client_id"] = clientID
        switch self {
        case .none:
            break
        case .secret(let secret):
            let pair = Self.formEncode(clientID) + ":" + Self.formEncode(secret)
            headers["Authorization"] = "Basic " + Data(pair.utf8).base64EncodedString()
            form["client_id"] = nil
        case .privateKeyJWT(let key, let keyID):
            form["client_assertion_type"] = Self.assertionType
            form["client_assertion"] = try DeviceSigningKeys.compactJWS(
                header: JWSHeader(algorithm: .es256, typ: "JWT", kid: keyID),
                claims: Self.assertionClaims(clientID, tokenEndpoint, now), key: key)
        case .symmetricJWT(let secret):
            form["client_assertion_type"] = Self.assertionType
            form["client_assertion"] = try Self.hs256(
                Self.assertionClaims(clientID, tokenEndpoint, now), secret: secret)
        case .attestation:
            guard let (challenge, attestation) = attested else {
                throw ZSMError(.invalidConfiguration, "a client attestation is made for the flow token only")
            }
            form["attestation_challenge"] = challenge
            form["client_assertion_type"] = attestation.type
            form["client_assertion"] = attestation.assertion
        }
    }

    /// RFC 7523 §3: `iss` = `sub` = the client, `aud` the token endpoint, a short life, a new `jti`.
    private static func assertionClaims(_ clientID: String, _ tokenEndpoint: URL, _ time: Date) -> JWTClaims {
        let now = time.timeIntervalSince1970.rounded(.down)
        return JWTClaims(
            iss: clientID, sub: clientID, aud: [tokenEndpoint.absoluteString], exp: now + 60, iat: now,
            jti: UUID().uuidString.lowercased())
    }

    private static func hs256(_ claims: JWTClaims, secret: String) throws(ZSMError) -> String {
        do {
            return try JWSCompactSerialization.sign(
                header: JWSHeader(algorithm: .hs256, typ: "JWT"), claims: claims,
                key: .hmac(.hs256, SymmetricKey(data: Array(secret.utf8))))
        } catch {
            throw ZSMError(.invalidConfiguration, "the client assertion could not be made")
        }
    }

    /// RFC 6749 §2.3.1: the client id and secret are form-encoded before Basic.
    static func formEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7f}"))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
