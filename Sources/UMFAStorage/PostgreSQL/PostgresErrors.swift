import Foundation
import PostgresNIO

/// Which failures may be retried, and the ``StoreError`` every driver or pool failure becomes.
extension PostgresExecutor {
    /// Whether running the statement again on another connection is safe: it never reached
    /// the database, or it only reads and its connection was lost.
    static func mayRetry(_ query: StoreQuery, after error: any Error) -> Bool {
        error is ConnectionGone || (isReadOnly(query) && isLostConnection(error))
    }

    /// Whether a statement only reads, so running it again cannot change anything.
    static func isReadOnly(_ query: StoreQuery) -> Bool {
        let words = query.sql.utf8.drop { $0 == 0x20 || (0x09...0x0D).contains($0) }
        // ASCII letters only: `| 0x20` makes an upper-case letter lower case.
        return words.count >= 6 && zip(words, "select".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Whether the statement failed because the connection was gone (a database restart),
    /// not because of the statement.
    static func isLostConnection(_ error: any Error) -> Bool {
        if error is ConnectionGone { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .serverClosedConnection, .uncleanShutdown, .connectionError, .clientClosedConnection: return true
        case .server:
            // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection exceptions.
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("57P") || state.hasPrefix("08")
        default: return false
        }
    }

    /// The ``StoreError`` for any failure of the driver or the pool. The server's message
    /// (never its detail, which may quote values) goes into the explanation for the log.
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PSQLError:
            if let state = error.serverInfo?[.sqlState] {
                if ["23505", "23503"].contains(state) {
                    return StoreError(.conflict, "a unique value already exists or a referenced row is missing")
                }
                let message = error.serverInfo?[.message] ?? ""
                return StoreError(.unavailable, "PostgreSQL \(state): \(message)")
            }
            // What lies under a connection error (an address refused, a certificate not
            // trusted) is the operator's clue; it holds no password.
            guard let underlying = error.underlying else {
                return StoreError(.unavailable, "PostgreSQL: \(error.code)")
            }
            return StoreError(.unavailable, "PostgreSQL: \(error.code): \(underlying)")
        default:
            return StoreError(.unavailable, "PostgreSQL: \(String(describing: type(of: error))): \(error)")
        }
    }
}
