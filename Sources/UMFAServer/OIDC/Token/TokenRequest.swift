/// One request to an issuer's client-authenticated endpoints (token, introspection, revocation,
/// PAR) as the HTTP edge parsed it: everything the OAuth engine judges, and nothing of HTTP.
struct TokenRequest: Sendable {
    /// The `application/x-www-form-urlencoded` body (RFC 6749 §3.2).
    let form: OAuthForm
    /// The `Authorization` header (HTTP Basic client authentication, RFC 6749 §2.3.1).
    let authorization: String?
    /// The `DPoP` header values (RFC 9449 §4.1; more than one is refused).
    let dpopProofs: [String]
    /// Who is calling: trace id, client address and the TLS client certificate (RFC 8705).
    let caller: Caller
    /// The endpoint's URL as the client addressed it (``RequestAddress``).
    let url: String
}
