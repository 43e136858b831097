import Foundation
import Logging

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
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(limits: AbuseLimits, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.limits = limits
        users = FailureCounter(limit: limits.userFailures, limits: limits)
        addresses = FailureCounter(limit: limits.addressFailures, limits: limits)
        credentials = FailureCounter(limit: limits.credentialFailures, limits: limits)
        self.now = now
        self.logger = logger
    }

    /// Runs one ceremony verification under the limits: refused with 429 while the user (from
    /// this address) or the address is blocked; a 401 it throws counts as a failure, a
    /// success forgets the user's failures from this address.
    func ceremony<T>(
        application: UUID, userID: String?, caller: Caller, _ body: () async throws -> T
    ) async throws -> T {
        let address = caller.clientAddress
        let userKey = "\(application.uuidString):\(userID ?? ""):\(address)"
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

    /// Refuses a caller whose address is blocked for wrong admin tokens or API keys.
    func checkCredentialGuessing(_ caller: Caller) throws {
        try refuseIfBlocked([(credentials, caller.clientAddress)])
    }

    /// Counts a wrong or missing admin token or API key from the caller's address.
    func recordCredentialFailure(_ caller: Caller) {
        record(credentials, caller.clientAddress, kind: "credential")
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
