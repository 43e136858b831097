import Foundation
import Synchronization

/// The authorization requests a client made and whose code has not been redeemed: their PKCE
/// verifier (RFC 7636 §4.1), `state` and `nonce`, and, once an authorization response carrying
/// a request's `state` was checked, its code. Kept in memory, or sealed in the device's storage
/// location (`oauth-pending/`) so that every token manager built with that location (and its
/// persisted DPoP key) can redeem a code, as Curity's documentation builds a new
/// `OAuthTokenManager` for it.
final class PendingAuthorizations: Sendable {
    /// One request.
    struct Entry: Codable, Sendable {
        var secrets: AuthorizationSecrets
        /// The code of the response whose `state` was checked against this request's.
        var code: String?
    }

    /// How many unredeemed requests are remembered.
    static let limit = 8

    private let memory = Mutex<[Entry]>([])
    private let store: (keys: DeviceSigningKeys, issuer: String, client: String)?

    /// Requests kept in memory only.
    init() { store = nil }

    /// Requests kept in `config`'s storage location for `client` of `issuer`.
    init(config: ZSMConfig, issuer: String, client: String) {
        store = (
            DeviceSigningKeys(
                config: config, folder: "oauth-pending", sealingMaterial: Array("umfa pending authorization v1".utf8)),
            issuer, client
        )
    }

    /// Runs `change` on the list, saved afterwards when it is kept on the device.
    private func update<Value: Sendable>(_ change: (inout [Entry]) -> Value) -> Value {
        memory.withLock { entries in
            if let store,
                let (bytes, _) = try? store.keys.loadSealed(applicationId: store.issuer, userId: store.client),
                let kept = try? JSONDecoder().decode([Entry].self, from: Data(bytes))
            {
                entries = kept
            }
            let value = change(&entries)
            if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
            if let store, let data = try? JSONEncoder().encode(entries) {
                try? store.keys.saveSealed(
                    Array(data), applicationId: store.issuer, userId: store.client, label: "pending")
            }
            return value
        }
    }

    /// Remembers a new request.
    func add(_ secrets: AuthorizationSecrets) { update { $0.append(Entry(secrets: secrets)) } }

    /// The `state` of the newest request.
    var newestState: String? { update { $0.last?.secrets.state } }

    /// Notes that the response with `code` carried the `state` of a request; `false` when no
    /// request has that state.
    func checked(state: String, code: String) -> Bool {
        update { entries in
            guard let index = entries.lastIndex(where: { $0.secrets.state == state }) else { return false }
            entries[index].code = code
            return true
        }
    }

    /// The request of `state`, no longer pending: a code is redeemed once.
    func take(state: String) -> AuthorizationSecrets? {
        update { entries in
            guard let index = entries.lastIndex(where: { $0.secrets.state == state }) else { return nil }
            return entries.remove(at: index).secrets
        }
    }

    /// The request whose checked response carried `code`, no longer pending.
    func take(code: String) -> AuthorizationSecrets? {
        update { entries in
            guard let index = entries.lastIndex(where: { $0.code == code }) else { return nil }
            return entries.remove(at: index).secrets
        }
    }
}
