import ServiceLifecycle

/// Runs `work` every `interval` until the server shuts down gracefully (or the task is
/// cancelled): the loop of every background service (expiry purge, abuse sweep, webhooks).
func runPeriodically(every interval: Duration, _ work: @escaping @Sendable () async -> Void) async {
    await cancelWhenGracefulShutdown {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            await work()
        }
    }
}
