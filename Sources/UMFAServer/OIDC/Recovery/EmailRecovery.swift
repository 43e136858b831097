import Foundation
import Logging
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// Recovery by email (docs/self-service.md, "Recovery by email"): a person who lost every passkey
/// asks for a link; a verified address of an account gets one by mail (15 minutes, used once),
/// whose page registers a new passkey for the account. The old passkeys stay until the person
/// removes them.
///
/// Asking tells nothing: the answer, and its time, are the same whether or not the address
/// belongs to an account, since the lookup and the mail happen after the answer, in a task of
/// their own; asking is limited per address asked about and per client address. Opening the
/// link spends nothing (mail scanners fetch links); the registration spends it.
struct EmailRecovery: Sendable {
    typealias Store = ApplicationStore & CredentialStore & UserProfileStore & OAuthGrantStore & OAuthClientStore

    let store: any Store
    let mailer: Mailer
    let enrollmentTokens: EnrollmentTokenService
    let registration: RegistrationService
    let abuse: AbuseGuard
    let audit: AuditLog
    let logger: Logger
    let now: @Sendable () -> Date

    /// How long a mailed link works.
    static let linkLifetime: TimeInterval = 900
    /// The prefix of a link's token.
    static let tokenPrefix = "umfa_rl_"
    /// The answer to every request.
    static let accepted =
        "If this address belongs to a verified account, a link to register a new passkey is on its way."
    static let spent = "This recovery link has expired or was used already; ask for a new one"

    private func grants(_ issuer: OAuthIssuer) -> OAuthGrants { OAuthGrants(store: store, now: now, issuer: issuer) }

    /// `POST <issuer>/recovery`.
    func request(_ body: EmailRecoveryRequest, issuer: OAuthIssuer, caller: Caller) async throws
        -> EmailRecoveryResponse
    {
        guard mailer.isOn else { throw Mailer.off }
        guard issuer.application.emailRecovery else {
            throw ServiceError.forbidden("This application does not offer recovery by email")
        }
        let email = body.email.trimmingCharacters(in: .whitespaces)
        try UserProfileService.checkEmail(email)
        try abuse.countRecoveryRequest(caller, email: email)
        Task { await mailLink(to: email, issuer: issuer, caller: caller) }
        return EmailRecoveryResponse(traceID: caller.traceID, message: Self.accepted)
    }

    /// Mails a link when `email` is the verified address of an account; nothing otherwise.
    private func mailLink(to email: String, issuer: OAuthIssuer, caller: Caller) async {
        let application = issuer.application
        do {
            guard let userID = try await store.userID(applicationID: application.id, email: email),
                let profile = try await store.userProfile(applicationID: application.id, userID: userID),
                let address = profile.email, profile.emailVerified
            else { return }
            let token = try await grants(issuer).create(
                .emailRecovery, [String: String](), lifetime: Self.linkLifetime, subject: userID,
                prefix: Self.tokenPrefix)
            let link = issuer.issuer + "/recovery/" + token
            await mailer.send(
                .accountRecovery, to: address, values: ["link": link], application: application, userID: userID)
        } catch {
            logger.error(
                "a recovery link was not mailed",
                metadata: ["trace.id": .string(caller.traceID), "error.message": .string("\(error)")])
        }
    }

    /// Whether `token` is a live link of the issuer: its user.
    func user(of token: String, issuer: OAuthIssuer) async throws -> String? {
        guard token.hasPrefix(Self.tokenPrefix), token.utf8.count <= 128,
            let found = try await grants(issuer).live(.emailRecovery, token, as: [String: String].self)
        else { return nil }
        return found.record.subject
    }

    /// `POST <issuer>/recovery/options`: creation options for the link's account, under an
    /// enrollment token of its own (the link is spent only by the registration).
    func options(_ body: EmailRecoveryOptionsRequest, issuer: OAuthIssuer, caller: Caller) async throws
        -> RegistrationOptionsResponse
    {
        try abuse.countOptionsRequest(caller)
        let application = issuer.application
        guard let userID = try await user(of: body.token, issuer: issuer),
            let user = try await store.user(applicationID: application.id, userID: userID)
        else { throw ServiceError.unauthenticated(Self.spent) }
        let enrollment = try await enrollmentTokens.issue(
            applicationID: application.id, userID: userID, lifetime: Int(Self.linkLifetime), caller: caller)
        let existing = try await store.credentials(applicationID: application.id, userID: userID)
        let email = try await store.userProfile(applicationID: application.id, userID: userID)?.email
        return try await registration.options(
            application: application, userID: userID, userName: email ?? userID, displayName: user.displayName,
            existing: existing,
            grant: EnrollmentGrant.Grant(
                kind: .enrollmentToken, enrollmentTokenHash: Secrets.hash(enrollment.enrollmentToken)),
            caller: caller)
    }

    /// `POST <issuer>/recovery/verify`: the new passkey is stored, then the link is spent; when
    /// another request spent it meanwhile, the passkey is removed again and the request refused.
    func verify(_ body: EmailRecoveryVerifyRequest, issuer: OAuthIssuer, caller: Caller) async throws
        -> EmailRecoveredResponse
    {
        let application = issuer.application
        // Step 1: a live link (a spent one registers nothing).
        guard let userID = try await user(of: body.token, issuer: issuer) else {
            throw ServiceError.unauthenticated(Self.spent)
        }
        // Step 2: the registration, under the options' enrollment token.
        let registered = try await registration.register(
            RegistrationVerifyRequest(
                applicationID: application.id.uuidString, userID: userID, credential: body.credential),
            application: application, caller: caller)
        // Step 3: the link, spent once on any instance.
        guard try await grants(issuer).consume(.emailRecovery, body.token, as: [String: String].self).found != nil
        else {
            _ = try? await store.deleteCredential(
                applicationID: application.id, userID: userID, credentialID: registered.credential.credentialID)
            throw ServiceError.unauthenticated(Self.spent)
        }
        await audit.record(
            .accountRecovered, application: application.id, actor: .user(userID), userID: userID,
            credentialID: registered.credential.credentialID, caller: caller, details: ["via": .string("email")])
        return EmailRecoveredResponse(
            traceID: caller.traceID, userID: userID, credentialID: Base64URL.encode(registered.credential.credentialID))
    }
}
