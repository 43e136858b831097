import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the TLS certificate and key on SIGHUP and when either file changes (polled), so a
/// renewed certificate is served without a restart. New handshakes use the new certificate;
/// open connections keep theirs. Files that do not load are logged and the old ones kept
/// (``TLSContexts/reload(logger:reason:)``).
struct TLSCertificateReloader: Service {
    let contexts: TLSContexts
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let contexts = contexts
        let logger = logger
        let interval = contexts.serving.reloadPollInterval
        try await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in hangups {
                        contexts.reload(logger: logger, reason: "SIGHUP")
                    }
                }
                guard let interval else { return }
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil {
                        contexts.reloadIfChanged(logger: logger)
                    }
                }
            }
        }
    }
}
