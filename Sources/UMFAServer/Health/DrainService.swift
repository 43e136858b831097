import Logging
import ServiceLifecycle

/// Drains the instance on SIGTERM (docs/operators/probes.md): run after the application in the
/// service group, it is the first to hear of a graceful shutdown, and makes `/health/ready`
/// answer 503 for ``period`` while the server still serves, so a load balancer or Kubernetes
/// takes the instance out of rotation before its listener closes.
package struct DrainService: Service {
    package let readiness: Readiness
    /// How long to keep serving while not ready (`UMFA_DRAIN_SECONDS`).
    let period: Duration
    let logger: Logger

    package func run() async throws {
        // Returns when a graceful shutdown starts; throws when the group is cancelled instead.
        do {
            try await gracefulShutdown()
        } catch {
            return
        }
        readiness.startDraining()
        guard period > .zero else { return }
        logger.info("draining: /health/ready answers 503 for \(period) before the server stops")
        try? await Task.sleep(for: period)
    }
}
