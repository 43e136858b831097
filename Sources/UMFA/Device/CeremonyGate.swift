/// Lets one ceremony per passkey at a time sign and finish, first come first served.
///
/// The authenticator's counter grows with each signature and the server refuses an assertion
/// whose counter is not above the last one it accepted; two sign-ins with one passkey that
/// signed in one order and reached the server in the other would fail. Holding the gate from
/// the signature until the server answered keeps the order. Waiting for options and for the
/// user happens outside, and other passkeys do not wait.
actor CeremonyGate {
    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` once every earlier caller for `key` has left.
    func run<Value: Sendable>(for key: String, _ body: @Sendable () async throws(ZSMError) -> Value)
        async throws(ZSMError) -> Value
    {
        await enter(key)
        defer { leave(key) }
        return try await body()
    }

    private func enter(_ key: String) async {
        guard busy.contains(key) else {
            busy.insert(key)
            return
        }
        await withCheckedContinuation { waiting[key, default: []].append($0) }
    }

    private func leave(_ key: String) {
        if var queue = waiting[key], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[key] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            busy.remove(key)
        }
    }
}
