import ServiceLifecycle
import UMFAStorage

/// Keeps the store open while the server runs and closes it on graceful shutdown, after the
/// HTTP server has finished its in-flight requests.
struct StoreLifecycle: Service {
    let store: any UMFAStore

    func run() async throws {
        try? await gracefulShutdown()
        try await store.close()
    }
}
