import Foundation
import Logging
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn
import X509

/// What every route needs: storage, the token service, the server secret and the clock.
struct ServerServices: Sendable {
    let store: any UMFAStore
    let tokens: TokenService
    /// Secret for values that must be stable but unguessable (pseudo credential ids).
    let serverSecret: [UInt8]
    /// Seals what must be stored readable by the server only, one purpose each; the master key
    /// itself is no service's to hold.
    let sealed: SealedSecrets
    /// The admin token, as only its checks need it.
    let adminToken: AdminToken
    /// How long a challenge is accepted.
    let challengeLifetime: TimeInterval
    let now: @Sendable () -> Date
    let logger: Logger
    /// The abuse limits every verification and credential check goes through.
    let abuse: AbuseGuard
    /// The attestation roots and FIDO metadata registrations are judged against.
    var attestationAnchors = AttestationTrustAnchors.wellKnown()
    /// Push services for approvals (``ServerConfiguration/approvalDispatchers``).
    var approvalDispatchers: [any ApprovalDispatcher] = []
    /// The server's public URL (`UMFA_PUBLIC_URL`): the base of every issuer URL.
    var publicURL = "http://localhost:8080"
    /// Ceremony, grant, signing, webhook and store metrics for `/metrics`.
    let metrics: ServerMetrics
    /// validate-token's short memory of API keys and credentials (``ValidationCache``).
    let validationCache: ValidationCache
    /// The CAs a `tls_client_auth` client's certificate must chain to (RFC 8705 §2.1).
    var mutualTLSAnchors: [Certificate] = []
    /// The base URL of the mutual-TLS endpoint alias listener (RFC 8705 §5), for discovery's
    /// `mtls_endpoint_aliases`; `nil` without that listener.
    var mutualTLSAliasURL: String?

    /// The audit log (docs/contract.md §8).
    var audit: AuditLog { AuditLog(store: store, logger: logger, now: now) }
    var loginTokens: LoginTokens {
        LoginTokens(tokens: tokens, store: store, validationCache: validationCache, now: now)
    }
    var ceremonies: Ceremonies {
        Ceremonies(
            store: store, attestationAnchors: attestationAnchors, challengeLifetime: challengeLifetime, abuse: abuse,
            metrics: metrics, audit: audit, now: now)
    }
    var signIns: SignInCredentials { SignInCredentials(store: store, audit: audit, logger: logger, now: now) }
    var apiKeys: APIKeyAuthentication {
        APIKeyAuthentication(store: store, validationCache: validationCache, abuse: abuse)
    }
    var webhooks: Webhooks { Webhooks(store: store, sealed: sealed, logger: logger, now: now) }
    var consoleTokenEpoch: ConsoleTokenEpoch {
        ConsoleTokenEpoch(adminToken: adminToken, store: store, audit: audit, logger: logger)
    }
    var authentication: AuthenticationService {
        AuthenticationService(
            ceremonies: ceremonies, store: store, loginTokens: loginTokens, signIns: signIns, serverSecret: serverSecret)
    }
    var registration: RegistrationService {
        RegistrationService(ceremonies: ceremonies, store: store, loginTokens: loginTokens)
    }
    var deviceProofs: DeviceProofCheck {
        DeviceProofCheck(store: store, abuse: abuse, publicURL: publicURL, now: now)
    }
    var outOfBand: OutOfBandService {
        OutOfBandService(
            store: store, apiKeys: apiKeys, ceremonies: ceremonies, registration: registration,
            authentication: authentication, loginTokens: loginTokens, webhooks: webhooks,
            approvalDispatchers: approvalDispatchers, sealed: sealed, abuse: abuse, audit: audit, logger: logger,
            publicURL: publicURL, now: now)
    }
    var userProfiles: UserProfiles { UserProfiles(apiKeys: apiKeys, store: store, now: now) }
    var recoveryCodes: RecoveryCodes {
        RecoveryCodes(
            store: store, loginTokens: loginTokens, apiKeys: apiKeys, enrollmentTokens: enrollmentTokens, abuse: abuse,
            audit: audit, now: now)
    }
    var passkeyAccess: PasskeyManagementAccess { PasskeyManagementAccess(services: self) }
    var consoleSessions: ConsoleSessions {
        ConsoleSessions(store: store, epoch: consoleTokenEpoch, serverSecret: serverSecret, now: now)
    }
    var adminAuthorization: AdminAuthorization {
        AdminAuthorization(consoleSessions: consoleSessions, adminToken: adminToken, abuse: abuse)
    }
    var console: ConsoleService {
        ConsoleService(
            relyingParty: ConsoleRelyingParty(
                store: store, publicURL: publicURL, challengeLifetime: challengeLifetime, now: now),
            sessions: consoleSessions, authorization: adminAuthorization, store: store, abuse: abuse, audit: audit,
            now: now)
    }
    var enrollmentTokens: EnrollmentTokenService { EnrollmentTokenService(apiKeys: apiKeys, store: store, now: now) }
}
