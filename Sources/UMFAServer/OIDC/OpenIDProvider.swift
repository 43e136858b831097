import Foundation
import Logging
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import X509

/// What the OpenID provider is built from (docs/development.md, "Ports"): the stores it reads and
/// writes, the features of the device routes it reuses (sign-in, registration, approvals, user
/// profiles), and the keys, limits and settings its checks use. Each issuer's engine is put
/// together from it (``engine(for:)``); no single part of the engine holds it.
struct OpenIDProvider: Sendable {
    /// The stores the provider uses.
    typealias Store = ApplicationStore & CredentialStore & OAuthClientStore & OAuthGrantStore & UserProfileStore
        & InitialAccessTokenStore & OutOfBandStore

    let store: any Store
    /// Signs and checks ID tokens and access tokens.
    let tokens: TokenService
    let signIns: SignInCredentials
    let userProfiles: UserProfileService
    let authentication: AuthenticationService
    let registration: RegistrationService
    let outOfBand: OutOfBandService
    /// Mails a new account's email verification code.
    let emailCodes: EmailCodes
    let audit: AuditLog
    let refusals: RefusalTrail
    let abuse: AbuseGuard
    /// Opens client secrets and approval tokens.
    let sealed: SealedSecrets
    /// The server secret DPoP nonces and logout CSRF tokens derive from.
    let serverSecret: [UInt8]
    /// The attestation roots client attestations are judged against.
    let attestationAnchors: AttestationTrustAnchors
    /// The CAs a `tls_client_auth` client's certificate must chain to (RFC 8705 §2.1).
    let mutualTLSAnchors: [Certificate]
    /// Fetches the sector identifier documents of pairwise clients that register themselves.
    let sectorDocuments: SectorIdentifierDocuments
    let metrics: ServerMetrics
    let logger: Logger
    /// The server's public URL: the base of every issuer URL.
    let publicURL: String
    let now: @Sendable () -> Date

    /// The engine of `issuer`.
    func engine(for issuer: OAuthIssuer) -> OAuthComposition { OAuthComposition(provider: self, issuer: issuer) }
}
