import ArgumentParser
import Foundation
import Logging
import UMFAServer
import UMFAStorage
import UMFATokens

/// `umfa admin rotate-master-key`: re-seals every sealed value under a new master key
/// (docs/operators/keys.md), offline.
struct RotateMasterKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-master-key",
        abstract:
            "Re-seal every sealed value (signing keys, client and webhook secrets, tokens, mail) under a new master key.",
        discussion: """
            Stop every server on the database first. The current key is UMFA_MASTER_KEY, or master.key in \
            --data-dir; the new one is --new-key-file (32 bytes, or their base64, mode 0600). Signing keys keep \
            their kid. When the current key is master.key, the command replaces it with the new key at the end; \
            with UMFA_MASTER_KEY, set it to the new key before starting the servers. Interrupted (or stopped by \
            --limit), the command finishes when run again with the same files; until then no server starts on \
            the database. The audit log records master_key.rotated.
            """
    )

    @Option(help: "The database, such as sqlite:///srv/umfa/umfa.sqlite or postgres://umfa:secret@db/umfa.")
    var database: String

    @Option(
        name: .customLong("data-dir"), help: "The data directory holding master.key (unless UMFA_MASTER_KEY is set).")
    var dataDir: String

    @Option(name: .customLong("new-key-file"), help: "The new master key: 32 bytes, or their base64, mode 0600.")
    var newKeyFile: String

    @Option(help: "Re-seal at most this many values in this run (run again to go on).")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: dataDir)
        // As `umfa serve` reads it: UMFA_MASTER_KEY when set and not empty, else master.key.
        let fromEnvironment = ProcessInfo.processInfo.environment["UMFA_MASTER_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let current: MasterKey
        if let fromEnvironment {
            current = try MasterKey(base64: fromEnvironment)
        } else {
            guard let stored = try MasterKey.load(in: directory) else {
                throw MasterKeyRotation.Failure(
                    "no master key: set UMFA_MASTER_KEY or give the --data-dir holding master.key")
            }
            current = stored
        }
        let new = try MasterKey.read(file: URL(fileURLWithPath: newKeyFile))
        var logger = Logger(label: "umfa.rotate-master-key")
        logger.logLevel = .warning
        let store = try await StoreCopier.open(url: database, logger: logger)
        do {
            let report = try await rotate(
                store: store, current: current, new: new, directory: directory, keyInFile: fromEnvironment == nil)
            try? await store.close()
            FileHandle.standardOutput.write(Data((report + "\n").utf8))
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// The old key is kept here, beside the new `master.key`, until the rotation's last step.
    static let previousKeyFile = "master.key.previous"

    /// Runs the rotation; its JSON report.
    private func rotate(
        store: any UMFAStore, current: MasterKey, new: MasterKey, directory: URL, keyInFile: Bool
    ) async throws -> String {
        var old = current
        if current.isSame(as: new) {
            guard let marker = try await MasterKeyRotation.marker(in: store), marker.newKeyID == new.id else {
                throw MasterKeyRotation.Failure("the new key is the master key in use already: nothing to rotate")
            }
            // A run that put the new key in master.key and stopped before its last step: the key
            // it started from waits in master.key.previous.
            if let previous = try MasterKey.load(file: directory.appendingPathComponent(Self.previousKeyFile)),
                previous.id == marker.oldKeyID
            {
                old = previous
            }
        }
        let progress: @Sendable (String) -> Void = { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        let rotation = MasterKeyRotation(store: store, old: old, new: new, progress: progress)
        let outcome = try await rotation.run(limit: limit)
        var report: [String: Any] = [
            "new_key_id": new.id, "resealed": outcome.resealed, "already_new": outcome.alreadyNew,
        ]
        guard let sealedValues = outcome.sealedValues else {
            report["status"] = "partial"
            report["next"] = "run the same command again to go on; no server starts on the database until it is done"
            return try Self.json(report)
        }
        if keyInFile, !current.isSame(as: new) {
            try old.replaceFile(named: Self.previousKeyFile, in: directory)
            try new.replaceFile(in: directory)
            report["master_key_file"] = directory.appendingPathComponent("master.key").path
        } else if !keyInFile {
            report["next"] = "set UMFA_MASTER_KEY to the new key before starting the servers"
        }
        try await rotation.finish(sealedValues: sealedValues)
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(Self.previousKeyFile))
        report["status"] = "rotated"
        report["sealed_values"] = sealedValues
        return try Self.json(report)
    }

    private static func json(_ value: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }
}
