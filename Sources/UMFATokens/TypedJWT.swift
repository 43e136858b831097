import Foundation

/// The `typ` headers of the JWTs the server signs besides login tokens.
package enum JWTType {
    /// OAuth access tokens (RFC 9068 §2.1).
    package static let accessToken = "at+jwt"
    /// OpenID Connect ID tokens.
    package static let idToken = "JWT"
    /// OpenID Connect Back-Channel Logout 1.0 §2.4 logout tokens.
    package static let logoutToken = "logout+jwt"
    /// The types whose headers each signing key keeps encoded (``SigningKeySet``).
    static let all = [accessToken, idToken]
}

/// JWTs other than login tokens, signed with the same keys and told apart by their `typ`
/// header: OAuth access tokens are `at+jwt` (RFC 9068 §2.1), so neither kind of token is ever
/// accepted as the other.
extension TokenService {
    /// Signs `claims` with the current key of `algorithm` under the header
    /// `{"alg":…,"kid":…,"typ":type}`.
    package nonisolated func sign(
        _ claims: some Encodable, type: String, algorithm: TokenSigningAlgorithm = .rs256
    ) async throws -> String {
        let key = try await currentSigningKey(algorithm)
        let encodedHeader =
            try key.typedHeaders[type]
            ?? SigningKeySet.encodedTypedHeader(algorithm: algorithm, kid: key.kid, type: type)
        return try timed(algorithm) { try LoginTokenJWS.sign(claims, key: key, encodedHeader: encodedHeader) }
    }

    /// The payload of `token` when it is a JWS of `type` signed by one of the issuer's keys (not
    /// retired longer than `maximumLifetime` ago); the caller checks the claims.
    package nonisolated func verifiedPayload(of token: String, type: String, now: Date, maximumLifetime: TimeInterval)
        async throws(TokenValidationFailure) -> Data
    {
        let (parts, _) = try await verifiedJWS(token, now: now, maximumLifetime: maximumLifetime)
        guard parts.header.typ?.lowercased() == type.lowercased() else {
            throw TokenValidationFailure("Invalid JWT: the token type is not \(type)")
        }
        return parts.payload
    }
}
