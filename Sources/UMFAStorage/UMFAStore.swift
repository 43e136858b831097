import Foundation
import UMFATokens

/// Everything the server keeps, behind one interface with two engines: an SQLite file
/// (embedded default) and PostgreSQL (shared by many server instances). Each feature of the
/// server names the smaller stores it uses (docs/development.md, "Ports"); this is the sum
/// the engines implement.
///
/// Secrets arrive already hashed or sealed; no method takes a secret in clear.
package protocol UMFAStore: ApplicationStore, CredentialStore, CeremonyStore, SettingStore, SigningKeyStore,
    AbuseCounterStore, OAuthClientStore, OAuthGrantStore, UserProfileStore, InitialAccessTokenStore,
    SelfServiceStore, AuditLogStore, ConsoleStore, OutOfBandStore, DeviceKeyStore, WebhookOutboxStore,
    AccountDeletionStore, MailOutboxStore, EmailVerificationStore, LogoutOutboxStore, SealedValueStore,
    SignInStore
{
    /// Creates or upgrades the schema; safe to call on every start.
    func migrate() async throws

    /// Closes the connections; the store is unusable afterwards.
    func close() async throws

    /// Proves the database can be reached and written now (readiness, docs/operators/probes.md);
    /// throws a ``StoreError`` saying why not. Writes nothing.
    func probe() async throws

    /// Removes challenges, enrollment tokens and revoked-token records that expired before `date`.
    func purgeExpired(before date: Date) async throws
}

/// Applications and their API keys.
package protocol ApplicationStore: Sendable {
    /// Adds an application.
    func insertApplication(_ application: ApplicationRecord) async throws
    /// Looks an application up.
    func application(id: UUID) async throws -> ApplicationRecord?
    /// Replaces an application's settings.
    func updateApplication(_ application: ApplicationRecord) async throws
    /// Every application, oldest first (ties by id).
    func applications() async throws -> [ApplicationRecord]
    /// The applications whose RP ID is `rpID`, oldest first (ties by id).
    func applications(rpID: String) async throws -> [ApplicationRecord]

    /// Adds an API key hash for an application.
    func insertAPIKey(hash: [UInt8], applicationID: UUID, createdAt: Date) async throws
    /// The application an API key hash belongs to, read in one query.
    func application(forAPIKeyHash hash: [UInt8]) async throws -> ApplicationRecord?
    /// An application's API keys (ids and creation times; never the keys).
    func apiKeys(applicationID: UUID) async throws -> [APIKeyRecord]
    /// Deletes an API key by id; `false` when the application has no such key.
    func deleteAPIKey(applicationID: UUID, keyID: String) async throws -> Bool
}

/// Users and their passkeys.
package protocol CredentialStore: Sendable {
    /// Looks a user up by the application's user id.
    func user(applicationID: UUID, userID: String) async throws -> UserRecord?
    /// Looks a user up by WebAuthn user handle.
    func user(applicationID: UUID, userHandle: [UInt8]) async throws -> UserRecord?
    /// Adds a user; when one with the same user id exists, returns that one unchanged.
    func insertUser(_ user: UserRecord) async throws -> UserRecord

    /// The user's credentials, oldest first (ties by credential id bytes).
    func credentials(applicationID: UUID, userID: String) async throws -> [StoredCredential]
    /// The credentials of one real user of the application, picked by `seed` (the same seed
    /// picks the same user while the credentials stay as they are); empty when the application
    /// has none. Pseudo credential lists for unknown users are shaped after them.
    func sampleCredentials(applicationID: UUID, seed: [UInt8]) async throws -> [StoredCredential]
    /// Looks a credential up by id within an application.
    func credential(applicationID: UUID, credentialID: [UInt8]) async throws -> StoredCredential?
    /// Looks a credential up by id with its owner's WebAuthn user handle, in one statement (a
    /// sign-in needs both); `nil` when the credential, or its owner, is not there.
    func credentialWithOwnerHandle(applicationID: UUID, credentialID: [UInt8]) async throws -> (
        credential: StoredCredential, ownerHandle: [UInt8]
    )?
    /// Adds a credential; throws ``StoreError/conflict`` when the id is registered already.
    func insertCredential(_ credential: StoredCredential) async throws
    /// Records a sign-in (sign count, backup state, UV history, last use) when the stored sign
    /// count is still `expectedSignCount`, the value the assertion was checked against; the
    /// compare is in the statement, so of two assertions checked against one counter value only
    /// one is recorded, even on two instances. `false` when the counter moved meanwhile (or
    /// the credential is gone): the caller refuses that assertion.
    func updateCredentialUse(_ credential: StoredCredential, expectedSignCount: UInt32) async throws -> Bool
    /// Adds a credential only when its user has no credential yet, in one statement; `false`
    /// when the user has one. Throws ``StoreError/conflict`` when the id is registered already.
    func insertFirstCredential(_ credential: StoredCredential) async throws -> Bool
    /// Removes a credential of a user; `false` when there was none.
    func deleteCredential(applicationID: UUID, userID: String, credentialID: [UInt8]) async throws -> Bool
}

/// The single-use values of a ceremony: challenges and enrollment tokens.
package protocol CeremonyStore: Sendable {
    /// Stores an issued challenge.
    func insertChallenge(_ challenge: ChallengeRecord) async throws
    /// Atomically removes and returns a challenge of this application and ceremony, so it is
    /// used at most once even across server instances; `nil` when unknown or already used.
    func consumeChallenge(_ challenge: [UInt8], applicationID: UUID, ceremony: CeremonyKind) async throws
        -> ChallengeRecord?

    /// Stores an enrollment token hash.
    func insertEnrollmentToken(_ token: EnrollmentTokenRecord) async throws
    /// Reads an enrollment token of this application and user without spending it.
    func enrollmentToken(hash: [UInt8], applicationID: UUID, userID: String) async throws -> EnrollmentTokenRecord?
    /// Atomically removes and returns an enrollment token of this application and user;
    /// `nil` when unknown, used, or issued for someone else (which leaves it untouched).
    func consumeEnrollmentToken(hash: [UInt8], applicationID: UUID, userID: String) async throws
        -> EnrollmentTokenRecord?
}

/// Server settings (admin token hash, server secret).
package protocol SettingStore: Sendable {
    /// A server setting (admin token hash, server secret).
    func setting(_ name: String) async throws -> String?
    /// Stores a setting unless it exists; returns the value now stored.
    func insertSettingIfAbsent(_ name: String, value: String) async throws -> String
    /// Removes a setting; removing an absent one does nothing.
    func deleteSetting(_ name: String) async throws
}

/// Storage failures the server maps to HTTP answers.
package struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of failure.
    package enum Code: String, Sendable {
        /// A unique value already exists, or a row it refers to does not.
        case conflict
        /// The stored data could not be read back.
        case corrupt
        /// The database is unreachable or failed; the operation may succeed when tried again.
        case unavailable
    }

    /// The kind of failure.
    package let code: Code
    /// The explanation, for the server log.
    package let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the explanation.
    package var description: String { "\(code.rawValue): \(message)" }
}
