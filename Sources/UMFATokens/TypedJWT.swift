import Crypto
import Foundation
import _CryptoExtras

/// JWTs other than login tokens, signed with the same keys and told apart by their `typ`
/// header: OAuth access tokens are `at+jwt` (RFC 9068 §2.1), so neither kind of token is ever
/// accepted as the other.
extension TokenService {
    /// Signs `claims` with the current key under the header `{"alg":"RS256","kid":…,"typ":type}`.
    public nonisolated func sign(_ claims: some Encodable, type: String) async throws -> String {
        let keys = try await currentKeys()
        guard let kid = keys.currentKID, let key = keys.keys[kid] else {
            throw TokenValidationFailure("no signing key is loaded")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = LoginTokenHeader(alg: "RS256", iss: nil, kid: kid, typ: type, crit: nil)
        let signingInput =
            Base64URLText.encode(try encoder.encode(header)) + "." + Base64URLText.encode(try encoder.encode(claims))
        let signature = try key.privateKey.signature(
            for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + Base64URLText.encode(signature.rawRepresentation)
    }

    /// The payload of `token` when it is a JWS of `type` signed by one of the issuer's keys (not
    /// retired longer than `maximumLifetime` ago); the caller checks the claims.
    public nonisolated func verifiedPayload(of token: String, type: String, now: Date, maximumLifetime: TimeInterval)
        async throws(TokenValidationFailure) -> Data
    {
        let (parts, _) = try await verifiedJWS(token, now: now, maximumLifetime: maximumLifetime)
        guard parts.header.typ?.lowercased() == type.lowercased() else {
            throw TokenValidationFailure("Invalid JWT: the token type is not \(type)")
        }
        return parts.payload
    }
}
