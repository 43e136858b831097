/// One statement of a transaction run by ``SQLExecutor/atomically(_:)``.
struct TransactionStep: Sendable {
    /// The statement.
    let query: StoreQuery
    /// Whether the transaction goes on only when the statement returns a row: when it returns
    /// none, everything the transaction did is rolled back (a `DELETE … RETURNING` of the row
    /// the others depend on, say).
    var needsRow = false
}
