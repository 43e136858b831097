/// When an SQLite commit reaches the disk (`PRAGMA synchronous`, in WAL mode).
///
/// - ``normal`` (the default): a commit is written to the WAL before the server answers and
///   survives the server process being killed at any moment (`kill -9`, a crash); the WAL is
///   synced at checkpoints. Only a power loss or an operating-system crash can undo the last
///   commits before the next checkpoint — the database stays intact either way. SQLite's own
///   advice for WAL mode; it removes an fsync from every write (see docs/performance/README.md).
/// - ``full``: every commit is synced before the server answers, so it also survives a power
///   loss, at the cost of one fsync per write (a login writes three times).
package enum SQLiteDurability: String, Sendable, CaseIterable {
    /// Durable across process crashes; synced at checkpoints.
    case normal
    /// Durable across power loss; synced at every commit.
    case full

    var pragmaValue: String { rawValue.uppercased() }
}

/// An SQLite location as the database URL gives it after `sqlite://`: a file path, then
/// optionally `?synchronous=normal|full`.
struct SQLiteLocation: Equatable {
    let file: String
    let durability: SQLiteDurability

    init(_ text: String) throws {
        guard let mark = text.firstIndex(of: "?") else {
            file = text
            durability = .normal
            return
        }
        file = String(text[..<mark])
        var durability = SQLiteDurability.normal
        for parameter in text[text.index(after: mark)...].split(separator: "&") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0] == "synchronous", let value = SQLiteDurability(rawValue: pair[1]) else {
                throw StoreError(
                    .unavailable,
                    "the SQLite URL takes only ?synchronous=normal or ?synchronous=full, not \"\(parameter)\"")
            }
            durability = value
        }
        guard !file.isEmpty else { throw StoreError(.unavailable, "the SQLite URL has no file path") }
        self.durability = durability
    }
}
