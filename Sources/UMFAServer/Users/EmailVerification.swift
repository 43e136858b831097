import Crypto
import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Verifying a user's email address by a code mailed to it (docs/self-service.md, "Verifying the
/// email address"): six digits, good for ``EmailCodes/codeLifetime`` and ``EmailCodes/attempts`` tries, appearing once
/// in the mail and stored only as an HMAC under the server secret (a database copy does not give
/// the codes away). Mailed after a sign-up with an address, and again on request at most once
/// a ``EmailCodes/resendSpacing``. Only the address the code went to is verified by it.
struct EmailVerification: Sendable {
    let access: PasskeyManagementAccess
    let codes: EmailCodes
    let audit: AuditLog

    private var store: any EmailVerificationStore & UserProfileStore { codes.store }
    private var mailer: Mailer { codes.mailer }
    private var now: @Sendable () -> Date { codes.now }

    /// `POST /api/umfa/me/email/verification`: a new code to the user's address.
    func send(values: RequestValues, caller: Caller) async throws -> EmailVerificationResponse {
        // The caller first: nothing about the server is told to someone without a token.
        let user = try await access.user(caller, values: values, scope: PasskeyManagementAccess.accountScope)
        guard mailer.isOn else { throw Mailer.off }
        let (email, verified) = try await address(of: user)
        if verified { return EmailVerificationResponse(traceID: caller.traceID, email: email, emailVerified: true) }
        if let pending = try await store.emailVerification(applicationID: user.application.id, userID: user.userID) {
            let wait = EmailCodes.resendSpacing - now().timeIntervalSince(pending.sentAt)
            if wait > 0 {
                throw ServiceError(
                    .rateLimited(retryAfterSeconds: Int(wait.rounded(.up))),
                    "A code was mailed less than a minute ago; ask again later")
            }
        }
        let expires = try await codes.mail(user.application, userID: user.userID, email: email)
        return EmailVerificationResponse(
            traceID: caller.traceID, email: email, emailVerified: false, codeExpiresAt: Timestamps.rfc3339(expires))
    }

    /// `POST /api/umfa/me/email/verify`.
    func verify(_ request: EmailVerifyRequest, values: RequestValues, caller: Caller) async throws
        -> EmailVerificationResponse
    {
        let user = try await access.user(caller, values: values, scope: PasskeyManagementAccess.accountScope)
        guard mailer.isOn else { throw Mailer.off }
        let code = (request.code ?? "").trimmingCharacters(in: .whitespaces)
        let email = try await codes.check(
            code, application: user.application, userID: user.userID, audit: audit, caller: caller)
        return EmailVerificationResponse(traceID: caller.traceID, email: email, emailVerified: true)
    }

    private func address(of user: SignedInUser) async throws -> (String, Bool) {
        guard let profile = try await store.userProfile(applicationID: user.application.id, userID: user.userID),
            let email = profile.email
        else { throw ServiceError.conflict("The account has no email address") }
        return (email, profile.emailVerified)
    }
}

/// The codes of email verification: made, mailed with the outbox row stored beside them, and
/// hashed for comparison.
struct EmailCodes: Sendable {
    let store: any EmailVerificationStore & UserProfileStore
    let mailer: Mailer
    let serverSecret: [UInt8]
    let now: @Sendable () -> Date

    static let codeLifetime: TimeInterval = 600
    static let attempts = 5
    static let resendSpacing: TimeInterval = 60

    /// After a sign-up (hosted pages, the API-driven flow): mails a code when the new account has
    /// an unverified address and mail is on; whether it did. A failure is logged; the sign-up stands.
    @discardableResult
    func startAfterSignUp(_ application: ApplicationRecord, userID: String) async -> Bool {
        guard mailer.isOn else { return false }
        do {
            guard let profile = try await store.userProfile(applicationID: application.id, userID: userID),
                let email = profile.email, !profile.emailVerified
            else { return false }
            _ = try await mail(application, userID: userID, email: email)
            return true
        } catch {
            mailer.logger.error(
                "the verification mail of a new account was not queued",
                metadata: ["error.message": .string("\(error)")])
            return false
        }
    }

    /// Checks `code` against the code pending for the account and marks the address verified:
    /// one attempt spent before the comparison, in constant time; the account's address, which
    /// the code went to. Answers the address; an already verified one needs no code.
    func check(_ code: String, application: ApplicationRecord, userID: String, audit: AuditLog, caller: Caller)
        async throws -> String
    {
        guard code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw ServiceError.invalid("code must be the six digits of the mail", field: "code")
        }
        let applicationID = application.id
        guard let profile = try await store.userProfile(applicationID: applicationID, userID: userID),
            let email = profile.email
        else { throw ServiceError.conflict("The account has no email address") }
        if profile.emailVerified { return email }
        // Step 1: one attempt spent, in one statement, before the code is compared.
        guard
            let attempt = try await store.spendEmailVerificationAttempt(
                applicationID: applicationID, userID: userID, at: now())
        else {
            throw ServiceError.conflict(
                "No code is pending: it expired or was tried \(Self.attempts) times; ask for a new one")
        }
        // Step 2: the code, compared in constant time.
        guard constantTimeEqual(hash(code, applicationID: applicationID, userID: userID), attempt.codeHash) else {
            await audit.record(
                .emailVerificationFailed, application: applicationID, actor: .user(userID), userID: userID,
                caller: caller, details: ["attempts_left": .number(Double(attempt.attemptsLeft))])
            throw ServiceError.invalid(
                "The code is wrong; \(attempt.attemptsLeft) attempt\(attempt.attemptsLeft == 1 ? "" : "s") left",
                field: "code")
        }
        // Step 3: the address the code went to, if it is still the account's.
        guard attempt.email == email,
            try await store.completeEmailVerification(
                applicationID: applicationID, userID: userID, email: attempt.email, at: now())
        else {
            throw ServiceError.conflict("The address changed after the code was mailed; ask for a new code")
        }
        await audit.record(
            .emailVerified, application: applicationID, actor: .user(userID), userID: userID, caller: caller)
        return email
    }

    /// Stores a new code for `email` with the mail that carries it; when it stops working.
    func mail(_ application: ApplicationRecord, userID: String, email: String) async throws -> Date {
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
        let now = now()
        let expires = now.addingTimeInterval(Self.codeLifetime)
        guard
            let mail = try mailer.delivery(
                .emailVerification, to: email, values: ["code": code, "email": email], application: application,
                userID: userID)
        else { throw ServiceError.conflict("The account's email address cannot receive mail") }
        try await store.startEmailVerification(
            EmailVerificationRecord(
                applicationID: application.id, userID: userID, email: email,
                codeHash: hash(code, applicationID: application.id, userID: userID), attemptsLeft: Self.attempts,
                sentAt: now, expiresAt: expires),
            mail: mail)
        return expires
    }

    /// HMAC-SHA256 of the code, bound to its user, under the server secret.
    func hash(_ code: String, applicationID: UUID, userID: String) -> [UInt8] {
        let message = Array("\(applicationID.uuidString.lowercased())\u{0}\(userID)\u{0}\(code)".utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: serverSecret)))
    }
}
