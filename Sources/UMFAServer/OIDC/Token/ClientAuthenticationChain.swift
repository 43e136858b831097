import UMFAStorage

/// The one client authentication chain of the token endpoint (RFC 6749 §2.3): a public client's
/// attestation where the flow token allows it (docs/contract.md §6), else the client's registered
/// method (``OAuthClientAuthentication``).
struct ClientAuthenticationChain: Sendable {
    /// The registered methods (RFC 6749 §2.3.1, RFC 7523, RFC 8705 §2).
    let registered: OAuthClientAuthentication
    /// A public client's attestation (docs/contract.md §6).
    let attestation: ClientAttestationCheck

    /// A client, authenticated, and whether by attestation.
    struct Authenticated: Sendable {
        let client: OAuthClientRecord
        /// Whether it proved itself by a client attestation rather than its registered method.
        let attested: Bool
    }

    /// The client `request` authenticates. A client attestation is accepted only for
    /// `grant_type=client_credentials` with the flow token's scope.
    func authenticate(_ request: TokenRequest) async throws -> Authenticated {
        let attested = ClientAttestationCheck.isAttestation(request.form)
        guard attested else {
            return Authenticated(client: try await registeredMethod(request), attested: false)
        }
        guard request.form["grant_type"] == "client_credentials",
            request.form["scope"] == ClientAttestationCheck.apiFlowScope
        else {
            throw OAuthError.invalidRequest(
                "A client attestation is for grant_type client_credentials with scope \(ClientAttestationCheck.apiFlowScope)"
            )
        }
        let client = try await attestation.authenticate(
            form: request.form, authorization: request.authorization, caller: request.caller)
        return Authenticated(client: client, attested: true)
    }

    /// The client `request` authenticates by its registered method (introspection, revocation,
    /// PAR: no attestation there).
    func registeredMethod(_ request: TokenRequest) async throws -> OAuthClientRecord {
        try await registered.authenticate(
            form: request.form, authorization: request.authorization, caller: request.caller)
    }
}
