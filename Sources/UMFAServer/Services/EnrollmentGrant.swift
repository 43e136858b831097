import Foundation
import UMFAStorage
import UMFATokens

/// Decides whether a registration may start, by the application's enrollment policy
/// (docs/contract.md §2), and checks it again when the registration is verified.
///
/// An enrollment token is checked when options are asked for and spent only when the
/// registration is verified, so a client that lost an options response can ask again with the
/// same token (the SDK retries); a token still grants at most one credential. The `open`
/// policy's first enrollment is re-checked at verification too: a victim's own first
/// enrollment stops a registration an attacker started earlier.
struct EnrollmentGrant {
    /// The stores an enrollment grant reads and spends.
    typealias Store = CredentialStore & CeremonyStore & UserProfileStore

    let store: any Store
    let loginTokens: LoginTokens
    let now: @Sendable () -> Date
    let application: ApplicationRecord

    /// The most a login token may be old to add a device under the `open` policy.
    static let loginTokenMaximumAge: TimeInterval = 300

    /// What allowed a registration to start, kept with its challenge.
    struct Grant {
        var kind: RegistrationGrantKind
        /// When the application last checked the user's password (from the enrollment token).
        var userpwTime: Date?
        var enrollmentTokenHash: [UInt8]?
    }

    static let invalidEnrollmentToken = "The enrollment token is invalid, expired or already used"
    static let anotherDeviceNeedsGrant = "Adding another device needs an enrollment token or a recent login token"
    static let emailTaken = "An account with this email address exists already; sign in instead"

    /// Checks the policy for a registration's options; spends nothing.
    func authorize(userID: String, hasCredentials: Bool, enrollmentToken: String?, loginToken: String?) async throws
        -> Grant
    {
        if let enrollmentToken {
            let hash = Secrets.hash(enrollmentToken)
            guard
                let grant = try await store.enrollmentToken(
                    hash: hash, applicationID: application.id, userID: userID),
                grant.expiresAt > now()
            else {
                throw ServiceError.unauthenticated(Self.invalidEnrollmentToken)
            }
            return Grant(kind: .enrollmentToken, userpwTime: grant.userpwTime, enrollmentTokenHash: hash)
        }
        switch application.enrollmentPolicy {
        case .grant:
            throw ServiceError.forbidden(
                "This application requires an enrollment token from its backend to register a device")
        case .open where !hasCredentials:
            return Grant(kind: .openFirstEnrollment)
        case .open:
            guard let loginToken else { throw ServiceError.forbidden(Self.anotherDeviceNeedsGrant) }
            let now = self.now()
            do {
                let claims = try await loginTokens.validate(
                    loginToken, application: application, userID: userID)
                guard let issuedAt = claims?.iat,
                    now.timeIntervalSince1970 - Double(issuedAt) <= Self.loginTokenMaximumAge
                else {
                    throw ServiceError.forbidden("The login token is older than 5 minutes; sign in again")
                }
            } catch let failure as TokenValidationFailure {
                throw ServiceError.unauthenticated(failure.message)
            }
            return Grant(kind: .loginToken)
        }
    }

    /// Checks the grant a verified registration's challenge carries and stores `credential`
    /// under it: the enrollment token is spent (and given back if the credential cannot be
    /// stored); an `open` first enrollment is stored only while the user still has no
    /// credential, in the same statement; an `open` grant needs the policy still `open`; account
    /// creation stores its new user, profile and credential together, or nothing (409 when the
    /// email address was taken meanwhile).
    func complete(
        _ challenge: ChallengeRecord, storing credential: StoredCredential,
        creating account: RegistrationService.NewAccount? = nil
    ) async throws {
        switch challenge.grant {
        case .enrollmentToken:
            guard let hash = challenge.enrollmentTokenHash,
                let token = try await store.consumeEnrollmentToken(
                    hash: hash, applicationID: application.id, userID: credential.userID),
                token.expiresAt > now()
            else {
                throw ServiceError.unauthenticated(Self.invalidEnrollmentToken)
            }
            do {
                try await store.insertCredential(credential)
            } catch {
                try? await store.insertEnrollmentToken(token)
                throw error
            }
        case .signUp:
            guard application.signup == .enabled, let account else {
                throw ServiceError.forbidden("This application does not accept new accounts")
            }
            guard
                try await store.insertAccount(account.user, profile: account.profile, credential: credential)
            else { throw ServiceError.conflict(Self.emailTaken) }
        case .openFirstEnrollment:
            try requireOpenPolicy()
            guard try await store.insertFirstCredential(credential) else {
                throw ServiceError.forbidden(Self.anotherDeviceNeedsGrant)
            }
        case .loginToken:
            try requireOpenPolicy()
            try await store.insertCredential(credential)
        case .outOfBand:
            // The backend asked for this enrollment with its API key; the phone proved it holds
            // the single-use dispatch token (OutOfBandService checks the transaction).
            try await store.insertCredential(credential)
        case nil:
            // A challenge issued before grants were recorded (an upgrade in flight): its token,
            // if any, was spent when the options were given.
            try await store.insertCredential(credential)
        }
    }

    private func requireOpenPolicy() throws {
        guard application.enrollmentPolicy == .open else {
            throw ServiceError.forbidden(
                "This application requires an enrollment token from its backend to register a device")
        }
    }
}
