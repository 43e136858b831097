import Synchronization

/// Where an authenticator keeps its credential sources, each with its own count of wrong
/// PINs or passwords (``CredentialSource/failedVerificationAttempts``).
///
/// The authenticator core does no file or network work itself; an app or tool supplies a
/// store (in memory, ``DirectoryCredentialStore``, a platform keychain).
public protocol CredentialStore: Sendable {
    /// Every credential scoped to `rpID`.
    func credentials(rpID: String) throws(AuthenticatorError) -> [CredentialSource]
    /// Every credential.
    func allCredentials() throws(AuthenticatorError) -> [CredentialSource]
    /// The credential with `id`, or `nil` when there is none. A store that keeps credentials
    /// apart answers without reading the others, so one damaged credential does not hide the rest.
    func credential(id: [UInt8]) throws(AuthenticatorError) -> CredentialSource?
    /// Adds a credential or replaces the one with the same id, durably.
    func save(_ credential: CredentialSource) throws(AuthenticatorError)
    /// Removes a credential; removing an unknown id does nothing.
    func delete(id: [UInt8]) throws(AuthenticatorError)
    /// Runs `body` while no other user of the store, in this process or another, runs one:
    /// the authenticator reads and updates a credential's counters inside.
    func exclusively<Value>(_ body: () throws(AuthenticatorError) -> Value) throws(AuthenticatorError) -> Value
}

extension CredentialStore {
    /// Every credential scoped to `rpID`, filtered from ``allCredentials()``.
    public func credentials(rpID: String) throws(AuthenticatorError) -> [CredentialSource] {
        try allCredentials().filter { $0.rpID == rpID }
    }

    /// Runs `body`; a store used by one process needs nothing more than the authenticator's own lock.
    public func exclusively<Value>(_ body: () throws(AuthenticatorError) -> Value) throws(AuthenticatorError)
        -> Value
    {
        try body()
    }

    /// The credential with `id`, found in ``allCredentials()``.
    public func credential(id: [UInt8]) throws(AuthenticatorError) -> CredentialSource? {
        try allCredentials().first { $0.id.bytes == id }
    }
}

/// A credential store that lives only as long as the process.
public final class InMemoryCredentialStore: CredentialStore {
    private let storage = Mutex<[CredentialSource]>([])

    /// Creates an empty store.
    public init() {}

    /// Every credential.
    public func allCredentials() -> [CredentialSource] {
        storage.withLock { $0 }
    }

    /// Every credential scoped to `rpID`.
    public func credentials(rpID: String) -> [CredentialSource] {
        storage.withLock { $0.filter { $0.rpID == rpID } }
    }

    /// Adds a credential or replaces the one with the same id.
    public func save(_ credential: CredentialSource) {
        storage.withLock { credentials in
            credentials.removeAll { $0.id == credential.id }
            credentials.append(credential)
        }
    }

    /// Removes a credential.
    public func delete(id: [UInt8]) {
        storage.withLock { $0.removeAll { $0.id.bytes == id } }
    }
}
