import Synchronization

/// Where an authenticator keeps its credential sources.
///
/// The authenticator core does no file or network work itself; an app or tool supplies a
/// store (in memory, an encrypted directory, a platform keychain).
public protocol CredentialStore: Sendable {
    /// Every credential scoped to `rpID`.
    func credentials(rpID: String) throws(AuthenticatorError) -> [CredentialSource]
    /// Adds a credential or replaces the one with the same id.
    func save(_ credential: CredentialSource) throws(AuthenticatorError)
    /// Removes a credential; removing an unknown id does nothing.
    func delete(id: [UInt8]) throws(AuthenticatorError)
}

/// A credential store that lives only as long as the process.
public final class InMemoryCredentialStore: CredentialStore {
    private let storage = Mutex<[CredentialSource]>([])

    /// Creates an empty store.
    public init() {}

    /// Every credential scoped to `rpID`.
    public func credentials(rpID: String) -> [CredentialSource] {
        storage.withLock { $0.filter { $0.rpID == rpID } }
    }

    /// Adds a credential or replaces the one with the same id.
    public func save(_ credential: CredentialSource) {
        storage.withLock { all in
            all.removeAll { $0.id == credential.id }
            all.append(credential)
        }
    }

    /// Removes a credential.
    public func delete(id: [UInt8]) {
        storage.withLock { $0.removeAll { $0.id.bytes == id } }
    }
}
