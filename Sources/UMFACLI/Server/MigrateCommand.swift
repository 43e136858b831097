import ArgumentParser
import Foundation
import Logging
import UMFAStorage

/// `umfa admin migrate`: moves an installation between databases (SQLite to PostgreSQL).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy every application, key, user, credential and signing key from one database to another.",
        discussion: """
            Stop the servers first. The target keeps rows it already has, so an interrupted copy can be \
            run again. Start the servers on the target with the same UMFA_MASTER_KEY (or master.key file) \
            as before: the signing keys are sealed with it.
            """
    )

    @Option(help: "The source database, such as sqlite:///srv/umfa/umfa.sqlite.")
    var from: String

    @Option(help: "The target database, such as postgres://umfa:secret@db:5432/umfa.")
    var to: String

    func run() async throws {
        var logger = Logger(label: "umfa.migrate")
        logger.logLevel = .warning
        let source = try await StoreCopier.open(url: from, logger: logger)
        let target: any UMFAStore
        do {
            target = try await StoreCopier.open(url: to, logger: logger)
        } catch {
            try? await source.close()
            throw error
        }
        do {
            let counts = try await StoreCopier.copy(from: source, to: target)
            try? await source.close()
            try? await target.close()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            FileHandle.standardOutput.write(try encoder.encode(["copied": counts]) + Data("\n".utf8))
        } catch {
            try? await source.close()
            try? await target.close()
            throw error
        }
    }
}
