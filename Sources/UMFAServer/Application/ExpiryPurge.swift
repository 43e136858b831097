import Foundation
import Logging
import ServiceLifecycle
import UMFAStorage

/// Removes expired challenges and enrollment tokens: once while the application is built and
/// then every ``interval`` while the server runs, so abandoned ceremonies do not pile up.
struct ExpiryPurge: Service {
    let store: any UMFAStore
    let now: @Sendable () -> Date
    let logger: Logger
    var interval: Duration = .seconds(600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    try await store.purgeExpired(before: now())
                } catch {
                    logger.warning(
                        "purging expired challenges failed", metadata: ["error.message": .string("\(error)")])
                }
            }
        }
    }
}
