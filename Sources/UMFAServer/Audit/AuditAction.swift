/// The actions the audit log records (docs/contract.md §8), by the names the API shows.
enum AuditAction: String, Sendable, CaseIterable {
    case registrationSucceeded = "registration.succeeded"
    case authenticationSucceeded = "authentication.succeeded"
    case authenticationFailed = "authentication.failed"
    case credentialRenamed = "credential.renamed"
    case credentialDeleted = "credential.deleted"
    case userDeleted = "user.deleted"
    case emailVerified = "email.verified"
    case accountRecovered = "account.recovered"
    case emailVerificationFailed = "email.verification_failed"
    case recoveryCodesCreated = "recovery.codes_created"
    case recoveryUsed = "recovery.used"
    case recoveryFailed = "recovery.failed"
    case approvalApproved = "approval.approved"
    case approvalDenied = "approval.denied"
    case approvalFailed = "approval.failed"
    /// A person approved a device's authorization (RFC 8628) on the hosted device page.
    case deviceApproved = "device.approved"
    /// A person denied a device's authorization on the hosted device page.
    case deviceDenied = "device.denied"
    case refreshTokenReuseDetected = "refresh_token.reuse_detected"
    /// The SSO sessions, codes and refresh-token families a deleted passkey (or user) signed in were ended.
    case sessionsRevoked = "sessions.revoked"
    case apiKeyCreated = "api_key.created"
    case apiKeyRevoked = "api_key.revoked"
    case applicationCreated = "application.created"
    case applicationUpdated = "application.updated"
    case oauthClientCreated = "oauth_client.created"
    case oauthClientUpdated = "oauth_client.updated"
    case oauthClientDeleted = "oauth_client.deleted"
    case oauthClientSecretRotated = "oauth_client.secret_rotated"
    case oauthClientRegistered = "oauth_client.registered"
    case initialAccessTokenCreated = "initial_access_token.created"
    case signingKeyRotated = "signing_key.rotated"
    /// Every sealed value re-sealed under a new master key (`umfa admin rotate-master-key`).
    case masterKeyRotated = "master_key.rotated"
    case adminSignedIn = "admin.signed_in"
    case adminSignedOut = "admin.signed_out"
    case adminSignInFailed = "admin.sign_in_failed"
    case adminPasskeyEnrolled = "admin.passkey_enrolled"
    case adminPasskeyRemoved = "admin.passkey_removed"
    case adminSessionEnded = "admin.session_ended"
    case adminPasskeysRevoked = "admin.passkeys_revoked"
    case webhookSecretRotated = "webhook.secret_rotated"
}

/// Who caused an audited event, as the log writes it.
enum AuditActor: Sendable, Equatable {
    /// A user proving themselves with a passkey, a login token or a recovery code.
    case user(String)
    /// An application backend, by the id of the API key it used (never the key).
    case apiKey(String)
    /// Whoever holds the admin token or an operator session.
    case admin
    /// An OAuth client.
    case client(String)
    /// Nobody known yet (a failed sign-in without a user).
    case anonymous

    var text: String {
        switch self {
        case .user(let id): "user:\(id)"
        case .apiKey(let id): "api_key:\(id)"
        case .admin: "admin"
        case .client(let id): "client:\(id)"
        case .anonymous: "anonymous"
        }
    }
}
