import Foundation
import Logging
import UMFAEncoding
import UMFAStorage
import UMFATokens

/// Re-seals every sealed value of a database under a new master key (docs/operators/keys.md,
/// `umfa admin rotate-master-key`), with the servers stopped.
///
/// Every value is handled on its own: one that opens with the new key is done already, one that
/// opens with the old key is sealed anew and replaced only if it still holds what was read
/// (each replacement committed alone). A rotation stopped at any point (a crash, a kill,
/// ``run(limit:)`` with a limit) is finished by running it again with the same keys; until it
/// is, a marker in the database names the new key, no server starts on the database, and no
/// rotation to another key begins. Signing keys are re-sealed under their own `kid`, so the
/// tokens they signed keep validating.
package struct MasterKeyRotation: Sendable {
    /// The setting that marks a rotation under way: the new key's ``MasterKey/id``.
    package static let marker = "master_key_rotation"

    /// How many values are read at a time.
    static let page = 200

    /// What a run did.
    package struct Outcome: Sendable, Equatable {
        /// Values sealed anew in this run, by ``SealedColumn`` name.
        package var resealed: [String: Int] = [:]
        /// Values that already opened with the new key.
        package var alreadyNew = 0
        /// Every sealed value by column, once all open with the new key; `nil` when the limit
        /// stopped the run first.
        package var sealedValues: [String: Int]?
    }

    /// Why a rotation cannot go on; the message says what to do.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String

        package init(_ description: String) { self.description = description }
    }

    /// The marker's value: the ids of the key the rotation started from and of its new key.
    package struct Marker: Sendable, Equatable {
        package var oldKeyID: String
        package var newKeyID: String

        var text: String { oldKeyID + " " + newKeyID }

        init(oldKeyID: String, newKeyID: String) {
            self.oldKeyID = oldKeyID
            self.newKeyID = newKeyID
        }

        init?(_ text: String) {
            let parts = text.split(separator: " ").map(String.init)
            guard parts.count == 2 else { return nil }
            (oldKeyID, newKeyID) = (parts[0], parts[1])
        }
    }

    let store: any UMFAStore
    let old: MasterKey
    let new: MasterKey
    /// Told of each column as it is done, for the operator.
    let progress: @Sendable (String) -> Void

    /// Creates a rotation from `old` to `new` on `store`.
    package init(
        store: any UMFAStore, old: MasterKey, new: MasterKey, progress: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.store = store
        self.old = old
        self.new = new
        self.progress = progress
    }

    /// Refuses a start while a rotation is under way (`ServerComposition.prepare`).
    static func refuseUnfinished(_ store: any SettingStore) async throws {
        if let text = try await store.setting(marker) {
            let key = Marker(text)?.newKeyID ?? text
            throw ConfigurationError(
                "a master-key rotation (to key \(key)) is unfinished: run `umfa admin rotate-master-key` again "
                    + "with the same --new-key-file, then start the server with the new key")
        }
    }

    /// The rotation under way on `store`, if any.
    package static func marker(in store: any SettingStore) async throws -> Marker? {
        try await store.setting(marker).flatMap(Marker.init)
    }

    /// Re-seals what still needs it, at most `limit` values when given.
    package func run(limit: Int? = nil) async throws -> Outcome {
        // Step 1: join the rotation under way, or check the keys and mark a new one.
        if let under = try await Self.marker(in: store) {
            guard under.newKeyID == new.id else {
                throw Failure(
                    "a rotation to another master key (\(under.newKeyID)) is unfinished: run this command with that key file"
                )
            }
            guard under.oldKeyID == old.id || old.id == new.id else {
                throw Failure(
                    "this rotation started from master key \(under.oldKeyID), not from the key given now (\(old.id))")
            }
        } else {
            try await checkOldKeyOpensEveryColumn()
            let marked = try await store.insertSettingIfAbsent(
                Self.marker, value: Marker(oldKeyID: old.id, newKeyID: new.id).text)
            guard Marker(marked)?.newKeyID == new.id else {
                throw Failure("another rotation began meanwhile (\(marked)): run this command again")
            }
        }
        // Step 2: every sealed column, value by value; a value needing work past the limit
        // stops the run.
        var outcome = Outcome()
        var budget = limit ?? .max
        for column in SealedColumn.allCases {
            let done = try await forEachValue(in: column) { value in
                try await reseal(value, in: column, budget: &budget, outcome: &outcome)
            }
            guard done else { return outcome }
            progress("\(column.rawValue): done")
        }
        // Step 3: prove that everything opens with the new key, and make it durable before the
        // caller puts the new key where servers read it.
        outcome.sealedValues = try await verify()
        try await store.makeCommitsDurable()
        return outcome
    }

    /// Refuses to begin when the key given as the current one does not open the first value of
    /// every column: it is not the key the database was sealed with (a key kept in another
    /// place, say), and a marker would keep every server from starting for nothing.
    private func checkOldKeyOpensEveryColumn() async throws {
        for column in SealedColumn.allCases {
            guard let first = try await store.sealedValues(in: column, after: nil, limit: 1).first else { continue }
            let context = Self.context(of: column, key: first.key)
            guard (try? old.open(first.sealed, context: context)) != nil else {
                throw Failure(
                    "the current master key (\(old.id)) does not open \(column.rawValue): give the key the servers use "
                        + "(UMFA_MASTER_KEY, or master.key in --data-dir); nothing was changed")
            }
        }
    }

    /// Seals `value` anew when it is still under the old key; `false` when it needs that but
    /// the budget is spent.
    private func reseal(
        _ value: SealedValue, in column: SealedColumn, budget: inout Int, outcome: inout Outcome
    ) async throws -> Bool {
        let context = Self.context(of: column, key: value.key)
        if (try? new.open(value.sealed, context: context)) != nil {
            outcome.alreadyNew += 1
            return true
        }
        guard budget > 0 else { return false }
        guard let plaintext = try? old.open(value.sealed, context: context) else {
            throw Failure(
                "\(column.rawValue) of \(column.keyColumn) \(value.key) opens with neither the old nor the new master key"
            )
        }
        budget -= 1
        let sealed = try new.seal(plaintext, context: context)
        if try await store.replaceSealedValue(in: column, key: value.key, old: value.sealed, new: sealed) {
            outcome.resealed[column.rawValue, default: 0] += 1
        }
        // Not replaced: the row changed or went meanwhile; the verification pass judges what is left.
        return true
    }

    /// Every sealed value by column; throws unless each opens with the new key.
    private func verify() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for column in SealedColumn.allCases {
            _ = try await forEachValue(in: column) { value in
                guard (try? new.open(value.sealed, context: Self.context(of: column, key: value.key))) != nil else {
                    throw Failure(
                        "\(column.rawValue) of \(column.keyColumn) \(value.key) is still sealed with another key: "
                            + "was a server running? Stop every server and run the rotation again")
                }
                counts[column.rawValue, default: 0] += 1
                return true
            }
        }
        return counts
    }

    /// Hands `body` every value of `column`, in key order, a page at a time, until it answers
    /// `false`; whether it saw them all.
    private func forEachValue(
        in column: SealedColumn, _ body: (SealedValue) async throws -> Bool
    ) async throws -> Bool {
        var after: String?
        while true {
            let values = try await store.sealedValues(in: column, after: after, limit: Self.page)
            for value in values {
                guard try await body(value) else { return false }
                after = value.key
            }
            if values.count < Self.page { return true }
        }
    }

    /// Ends the rotation once the new key is where servers read it: records `master_key.rotated`
    /// in the audit log (the key ids of the marker, and how many values each column holds, all
    /// now under the new key) and removes the marker, so servers start again with the new key.
    package func finish(sealedValues: [String: Int], now: Date = Date()) async throws {
        let marker = try await Self.marker(in: store)
        var details: [String: JSONValue] = [
            "old_key_id": .string(marker?.oldKeyID ?? old.id), "new_key_id": .string(new.id),
        ]
        details["sealed_values"] = .object(sealedValues.mapValues { .number(Double($0)) })
        try await store.insertAuditEvent(
            AuditEventRecord(
                id: TimeOrderedID.next(at: now), occurredAt: now, applicationID: nil,
                action: AuditAction.masterKeyRotated.rawValue, actor: AuditActor.admin.text,
                clientAddress: "command-line", traceID: TraceID.make(), details: details))
        try await store.deleteSetting(Self.marker)
    }

    /// The AEAD context each column's values are sealed under (``SealedSecrets``, ``TokenService``).
    static func context(of column: SealedColumn, key: String) -> String {
        let purpose: SealedSecrets.Purpose
        switch column {
        case .signingKey: return TokenService.sealingContext(kid: key)
        case .clientSecret: purpose = .clientSecret(clientID: key)
        case .webhookSecret: purpose = .webhookSecret
        case .transactionToken: purpose = .transactionToken
        case .dispatchToken: purpose = .dispatchToken
        case .transactionPing, .webhookTarget: purpose = .cibaPing
        case .mailMessage: purpose = .mailMessage
        }
        return purpose.context
    }
}
