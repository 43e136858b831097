import Foundation
import Logging
import ServiceLifecycle
import UMFAStorage

/// Removes expired challenges and enrollment tokens, and audit events older than the retention
/// period: once while the application is built and then every ``interval`` while the server
/// runs, so abandoned ceremonies do not pile up.
struct ExpiryPurge: Service {
    let store: any UMFAStore
    let now: @Sendable () -> Date
    let logger: Logger
    /// How long audit events are kept.
    var auditRetention: Duration = .seconds(90 * 86_400)
    var interval: Duration = .seconds(600)

    /// One pass.
    func purge() async throws {
        let now = now()
        try await store.purgeExpired(before: now)
        try await store.purgeAuditEvents(before: now.addingTimeInterval(-auditRetention.timeInterval))
    }

    func run() async throws {
        await runPeriodically(every: interval) {
            do {
                try await purge()
            } catch {
                logger.warning("purging expired challenges failed", metadata: ["error.message": .string("\(error)")])
            }
        }
    }
}
