import Foundation

/// Every column that holds a value sealed with the master key, so that a master-key rotation
/// (docs/operators/keys.md) reaches each of them. A test holds this list to the schema: a
/// `sealed_*` column missing here fails it.
package enum SealedColumn: String, CaseIterable, Sendable {
    /// Token signing keys' private halves.
    case signingKey = "signing_keys.sealed_private_key"
    /// `client_secret_jwt` clients' secrets.
    case clientSecret = "oauth_clients.sealed_secret"
    /// Applications' webhook signing secrets.
    case webhookSecret = "applications.sealed_webhook_secret"
    /// Login tokens of out-of-band transactions that succeeded, kept for their status poll.
    case transactionToken = "oob_transactions.sealed_token"
    /// Out-of-band dispatch tokens.
    case dispatchToken = "oob_transactions.sealed_dispatch_token"
    /// CIBA ping endpoints and bearer tokens, on their transactions.
    case transactionPing = "oob_transactions.sealed_ping"
    /// Mail waiting in the outbox.
    case mailMessage = "mail_outbox.sealed_message"
    /// CIBA pings waiting in the webhook outbox.
    case webhookTarget = "webhook_outbox.sealed_target"

    /// The table.
    package var table: String { String(rawValue.prefix { $0 != "." }) }
    /// The column.
    package var column: String { String(rawValue.drop { $0 != "." }.dropFirst()) }
    /// The table's key column (text in every table listed).
    package var keyColumn: String {
        switch self {
        case .signingKey: "kid"
        case .clientSecret: "client_id"
        case .webhookSecret, .mailMessage, .webhookTarget: "id"
        case .transactionToken, .dispatchToken, .transactionPing: "transaction_id"
        }
    }
}

/// One sealed value and the key of its row.
package struct SealedValue: Sendable, Equatable {
    /// The row's key (``SealedColumn/keyColumn``).
    package var key: String
    /// The sealed bytes.
    package var sealed: [UInt8]

    /// Creates a value.
    package init(key: String, sealed: [UInt8]) {
        self.key = key
        self.sealed = sealed
    }
}

/// Reading and replacing sealed values one by one, for a master-key rotation.
package protocol SealedValueStore: Sendable {
    /// Up to `limit` values of `column`, in key order, after the row keyed `after` (from the
    /// start when `nil`); rows without a value are skipped.
    func sealedValues(in column: SealedColumn, after: String?, limit: Int) async throws -> [SealedValue]
    /// Replaces the value of the row keyed `key` with `new` when it still holds `old`; `false`
    /// when it does not (changed or deleted meanwhile). Each replacement is committed alone.
    func replaceSealedValue(in column: SealedColumn, key: String, old: [UInt8], new: [UInt8]) async throws -> Bool
    /// Returns once every write committed so far would survive a power loss: SQLite checkpoints
    /// its WAL into the file (synced) whatever its `synchronous` setting; PostgreSQL commits one
    /// more write with `synchronous_commit` on, which waits for the WAL before it.
    func makeCommitsDurable() async throws
}

extension SQLStore {
    func sealedValues(in column: SealedColumn, after: String?, limit: Int) async throws -> [SealedValue] {
        let (table, name, key) = (column.table, column.column, column.keyColumn)
        let rows = try await executor.rows(
            StoreQuery(
                "SELECT \(key) AS row_key, \(name) AS sealed FROM \(table) WHERE \(name) IS NOT NULL AND \(key) > ? "
                    + "ORDER BY \(key) LIMIT ?",
                [.text(after ?? ""), .integer(Int64(limit))]))
        return try rows.map { SealedValue(key: try $0.text("row_key"), sealed: try $0.bytes("sealed")) }
    }

    func replaceSealedValue(in column: SealedColumn, key: String, old: [UInt8], new: [UInt8]) async throws -> Bool {
        let (table, name, keyColumn) = (column.table, column.column, column.keyColumn)
        let rows = try await executor.rows(
            StoreQuery(
                "UPDATE \(table) SET \(name) = ? WHERE \(keyColumn) = ? AND \(name) = ? RETURNING \(keyColumn)",
                [.bytes(new), .text(key), .bytes(old)]))
        return !rows.isEmpty
    }

    func makeCommitsDurable() async throws {
        try await executor.makeCommitsDurable()
    }
}
