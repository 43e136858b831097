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
        /// Whether every value now opens with the new key (`false`: the limit was reached).
        package var complete = false
    }

    /// Why a rotation cannot go on; the message says what to do.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
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
        if let key = try await store.setting(marker) {
            throw ConfigurationError(
                "a master-key rotation (to key \(key)) is unfinished: run `umfa admin rotate-master-key` again "
                    + "with the same --new-key-file, then start the server with the new key")
        }
    }

    /// Re-seals what still needs it, at most `limit` values when given.
    package func run(limit: Int? = nil) async throws -> Outcome {
        // Step 1: mark the rotation, or join the one under way with the same new key.
        let marked = try await store.insertSettingIfAbsent(Self.marker, value: new.id)
        guard marked == new.id else {
            throw Failure(
                description:
                    "a rotation to another master key (\(marked)) is unfinished: run this command with that key file first"
            )
        }
        // Step 2: every sealed column, value by value.
        var outcome = Outcome()
        var budget = limit ?? .max
        for column in SealedColumn.allCases {
            var after: String?
            while budget > 0 {
                let values = try await store.sealedValues(in: column, after: after, limit: Self.page)
                for value in values where budget > 0 {
                    after = value.key
                    if try await reseal(value, in: column, outcome: &outcome) { budget -= 1 }
                }
                if values.count < Self.page { break }
            }
            progress("\(column.rawValue): done")
            if budget == 0 { return outcome }
        }
        // Step 3: prove that everything opens with the new key.
        try await verify()
        outcome.complete = true
        return outcome
    }

    /// Seals `value` anew when it is still under the old key; whether it was.
    private func reseal(_ value: SealedValue, in column: SealedColumn, outcome: inout Outcome) async throws -> Bool {
        let context = Self.context(of: column, key: value.key)
        if (try? new.open(value.sealed, context: context)) != nil {
            outcome.alreadyNew += 1
            return false
        }
        guard let plaintext = try? old.open(value.sealed, context: context) else {
            throw Failure(
                description:
                    "\(column.rawValue) of \(column.keyColumn) \(value.key) opens with neither the old nor the new master key"
            )
        }
        let sealed = try new.seal(plaintext, context: context)
        if try await store.replaceSealedValue(in: column, key: value.key, old: value.sealed, new: sealed) {
            outcome.resealed[column.rawValue, default: 0] += 1
        }
        // Not replaced: the row changed or went meanwhile; the verification pass judges what is left.
        return true
    }

    /// Throws unless every sealed value opens with the new key.
    private func verify() async throws {
        for column in SealedColumn.allCases {
            var after: String?
            while true {
                let values = try await store.sealedValues(in: column, after: after, limit: Self.page)
                for value in values {
                    after = value.key
                    guard (try? new.open(value.sealed, context: Self.context(of: column, key: value.key))) != nil else {
                        throw Failure(
                            description:
                                "\(column.rawValue) of \(column.keyColumn) \(value.key) is still sealed with another key: "
                                + "was a server running? Stop every server and run the rotation again")
                    }
                }
                if values.count < Self.page { break }
            }
        }
    }

    /// Ends the rotation once the new key is where servers read it: records `master_key.rotated`
    /// in the audit log and removes the marker, so servers start again (with the new key alone).
    package func finish(resealed: [String: Int], now: Date = Date()) async throws {
        var details: [String: JSONValue] = [
            "old_key_id": .string(old.id), "new_key_id": .string(new.id),
        ]
        details["resealed"] = .object(resealed.mapValues { .number(Double($0)) })
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
