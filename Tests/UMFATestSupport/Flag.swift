import Synchronization

/// A flag raised once and read from any task: a test's signal between tasks it runs, waited for
/// by polling so that no thread blocks on it.
public final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// A flag not yet raised.
    public init() {}

    /// Raises the flag.
    public func raise() { raised.store(true, ordering: .releasing) }

    /// Whether the flag is raised.
    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    /// Returns once the flag is raised, or after `limit`; whether it was raised.
    @discardableResult
    public func wait(atMost limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !isRaised {
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(10))) != nil else {
                return isRaised
            }
        }
        return true
    }
}
