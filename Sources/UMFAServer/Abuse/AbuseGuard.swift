import Crypto
import Foundation
import Logging
import ServiceLifecycle
import UMFAEncoding

/// The server's abuse limits: failed ceremony verifications per user and client address and
/// per client address, and failed admin-token or API-key checks per client address. A blocked
/// caller gets 429 in the documented error shape with `Retry-After`, before any work is done.
///
/// Failures for a user are counted per client address, so an attacker's failures block the
/// attacker's address, never the real user's device elsewhere; the attacker's address is
/// also limited over all users. See SECURITY.md ("Denial of service") for the trade-off.
struct AbuseGuard: Sendable {
    let limits: AbuseLimits
    private let users: FailureCounter
    private let addresses: FailureCounter
    private let credentials: FailureCounter
    private let optionsRequests: FailureCounter
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(limits: AbuseLimits, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.limits = limits
        users = FailureCounter(limit: limits.userFailures, limits: limits)
        addresses = FailureCounter(limit: limits.addressFailures, limits: limits)
        credentials = FailureCounter(limit: limits.credentialFailures, limits: limits)
        optionsRequests = FailureCounter(limit: limits.optionsRequests, limits: limits)
        self.now = now
        self.logger = logger
    }

    /// Runs one ceremony verification under the limits: refused with 429 while the user (from
    /// this address) or the address is blocked; a 401 it throws counts as a failure, a
    /// success forgets the user's failures from this address.
    func ceremony<T>(
        application: UUID, userID: String?, caller: Caller, _ body: () async throws -> T
    ) async throws -> T {
        let address = Self.key(caller.clientAddress)
        let userKey = Self.key(application.uuidString, userID ?? "", caller.clientAddress)
        try refuseIfBlocked([(users, userKey), (addresses, address)])
        do {
            let value = try await body()
            users.reset(userKey)
            return value
        } catch let error as ServiceError where error.code == .unauthenticated {
            record(users, userKey, kind: "user")
            record(addresses, address, kind: "address")
            throw error
        }
    }

    /// Answers a wrong or missing admin token or API key: counts it against the caller's
    /// address, and throws 429 while that address is blocked, else `failure`. A valid token or
    /// key never comes here: limits stop guessing, not owners (DESIGN.md §4), so other
    /// callers' failures at the same address never lock its holder out.
    func refuseCredential(_ caller: Caller, counting: Bool = true, _ failure: ServiceError) throws -> Never {
        let address = Self.key(caller.clientAddress)
        try refuseIfBlocked([(credentials, address)])
        if counting { record(credentials, address, kind: "credential") }
        throw failure
    }

    /// Counts one request for ceremony options, which anyone may send and which stores a
    /// challenge: 429 past ``AbuseLimits/optionsRequests`` per address within the window.
    func countOptionsRequest(_ caller: Caller) throws {
        let address = Self.key(caller.clientAddress)
        try refuseIfBlocked([(optionsRequests, address)])
        record(optionsRequests, address, kind: "options")
    }

    /// Forgets keys whose window and blocks have passed; run on a timer (``AbuseSweep``), so
    /// memory follows the recent callers rather than every caller since the start.
    func sweep() {
        let now = now()
        for counter in [users, addresses, credentials, optionsRequests] { counter.sweep(now: now) }
    }

    /// The keys tracked over all limits, for tests of the memory bound.
    var trackedKeys: Int {
        [users, addresses, credentials, optionsRequests].map(\.trackedKeys).reduce(0, +)
    }

    /// A fixed-size key for the parts: SHA-256 over their UTF-8 bytes, each length-prefixed,
    /// so a long user id costs the limiter no more memory than a short one and two different
    /// byte strings never share a key, whatever Unicode says about them.
    static func key(_ parts: String...) -> String {
        var hasher = SHA256()
        for part in parts {
            let bytes = Array(part.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: bytes)
        }
        return Hex.encode(hasher.finalize().prefix(16))
    }

    private func refuseIfBlocked(_ keys: [(FailureCounter, String)]) throws {
        let now = now()
        let wait = keys.compactMap { $0.0.retryAfter($0.1, now: now) }.max()
        guard let wait else { return }
        let seconds = Int(wait.rounded(.up))
        throw ServiceError(
            .rateLimited(retryAfterSeconds: seconds), "Too many failed attempts; try again in \(seconds) seconds")
    }

    private func record(_ counter: FailureCounter, _ key: String, kind: String) {
        if let block = counter.recordFailure(key, now: now()) {
            // The key holds a user id and an address, never a secret.
            logger.warning(
                "abuse limit reached",
                metadata: ["abuse.kind": .string(kind), "abuse.block_seconds": .stringConvertible(Int(block))])
        }
    }
}

/// Sweeps the abuse limiter's expired keys every ``interval`` while the server runs.
struct AbuseSweep: Service {
    let abuse: AbuseGuard
    var interval: Duration = .seconds(60)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                abuse.sweep()
            }
        }
    }
}
