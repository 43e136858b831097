import UMFAWebAuthnModel
import UMFAWebAuthnTypes

/// Where ceremonies are performed. ``UMFAHTTPRelyingParty`` speaks the UMFA HTTP API; an app
/// whose own backend fronts UMFA supplies its own conformance.
public protocol RelyingParty: Sendable {
    /// Starts a registration and returns the creation options.
    func beginRegistration(userId: String, displayName: String?, enrollmentToken: String?) async throws(ZSMError)
        -> CeremonyOptions<CreationOptionsJSON>
    /// Finishes a registration.
    func finishRegistration(userId: String, credential: RegistrationResponseJSON, deviceName: String?)
        async throws(ZSMError) -> CeremonyOutcome
    /// Starts an authentication and returns the request options.
    func beginAuthentication(userId: String?) async throws(ZSMError) -> CeremonyOptions<RequestOptionsJSON>
    /// Finishes an authentication.
    func finishAuthentication(userId: String?, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    /// Removes the credential that signed `credential` (an assertion over a fresh challenge).
    func unenroll(userId: String, credential: AuthenticationResponseJSON) async throws(ZSMError) -> CeremonyOutcome
    /// Deletes `userId`'s whole account with `loginToken`, a fresh login token of theirs
    /// (docs/contract.md §8: `DELETE /api/umfa/me`). A relying party that does not offer it throws
    /// ``ZSMError/Code/invalidConfiguration`` (the default).
    func deleteAccount(userId: String, loginToken: String) async throws(ZSMError)
}

/// Options from the relying party, with the trace id of the request that produced them.
public struct CeremonyOptions<Options: Sendable>: Sendable {
    /// The WebAuthn options.
    public let options: Options
    /// The server's trace id.
    public let traceId: String?

    /// Creates options.
    public init(options: Options, traceId: String?) {
        self.options = options
        self.traceId = traceId
    }
}

/// What the relying party answered when a ceremony finished.
public struct CeremonyOutcome: Sendable, Hashable {
    /// The user.
    public let userId: String
    /// The credential, base64url.
    public let credentialId: String
    /// The login token, when the ceremony issues one.
    public let token: String?
    /// The server's trace id.
    public let traceId: String?

    /// Creates an outcome.
    public init(userId: String, credentialId: String, token: String?, traceId: String?) {
        self.userId = userId
        self.credentialId = credentialId
        self.token = token
        self.traceId = traceId
    }
}

extension RelyingParty {
    /// Account deletion is not offered: ``ZSMError/Code/invalidConfiguration``.
    public func deleteAccount(userId: String, loginToken: String) async throws(ZSMError) {
        throw ZSMError(.invalidConfiguration, "this relying party does not delete accounts")
    }
}
