import Crypto
import Foundation
import Logging
import ServiceLifecycle
import UMFAEncoding
import UMFAStorage

/// The server's abuse limits: failed ceremony verifications per user and client address and
/// per client address, and failed admin-token or API-key checks per client address. A blocked
/// caller gets 429 in the documented error shape with `Retry-After`, before any work is done.
///
/// Failures for a user are counted per client address, so an attacker's failures block the
/// attacker's address, never the real user's device elsewhere; the attacker's address is
/// also limited over all users. See docs/threat-model.md ("Denial of service and brute force")
/// for the trade-off.
struct AbuseGuard: Sendable {
    let limits: AbuseLimits
    private let failures: any FailureCounts
    private let optionsRequests: FailureCounter
    private let recoveryMails: FailureCounter
    private let recoveryMailsByAddress: FailureCounter
    private let now: @Sendable () -> Date
    private let logger: Logger

    /// - Parameter failures: where failures are counted: ``SharedFailureCounts`` when several
    ///   instances share the database, ``LocalFailureCounts`` (the default) for one.
    init(
        limits: AbuseLimits, failures: (any FailureCounts)? = nil, now: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.limits = limits
        self.failures = failures ?? LocalFailureCounts(limits: limits)
        // Options requests are a rate, counted per instance: sharing them would add a database
        // write to every options request (docs/threat-model.md, "Denial of service and brute force").
        optionsRequests = FailureCounter(limit: limits.optionsRequests, limits: limits)
        recoveryMails = FailureCounter(limit: Self.recoveryMailsPerEmail, limits: limits)
        recoveryMailsByAddress = FailureCounter(limit: Self.recoveryMailsPerClientAddress, limits: limits)
        self.now = now
        self.logger = logger
    }

    /// Runs one ceremony verification under the limits: refused with 429 while the user (from
    /// this address) or the address is blocked; a 401 it throws counts as a failure, a
    /// success forgets the user's failures from this address.
    ///
    /// - Parameter read: the stored counters of ``ceremonyCountersToRead(application:userID:caller:)``,
    ///   read with the ceremony's own rows; `nil` reads them here.
    func ceremony<T>(
        application: UUID, userID: String?, caller: Caller, read: [AbuseCounterRecord]? = nil,
        _ body: () async throws -> T
    ) async throws -> T {
        let (user, address) = Self.ceremonyKeys(application: application, userID: userID, caller: caller)
        let check: FailureCheck
        if let read {
            check = failures.check([user, address], now: now(), read: read)
            if let wait = check.retryAfter { throw Self.tooMany(wait) }
        } else {
            check = try await refuseIfBlocked([user, address])
        }
        do {
            let value = try await body()
            if check.counted.contains(user) { try await failures.reset(user) }
            return value
        } catch let error as ServiceError where error.code == .unauthenticated {
            await record(user, limit: limits.userFailures)
            await record(address, limit: limits.addressFailures)
            throw error
        }
    }

    /// The counters a ceremony verification of `userID` from `caller` is limited by that live in
    /// the store, for the ceremony to read with its own rows (``ceremony(application:userID:caller:read:_:)``);
    /// empty when failures are counted in memory.
    func ceremonyCountersToRead(application: UUID, userID: String?, caller: Caller) -> [AbuseCounterKey] {
        let (user, address) = Self.ceremonyKeys(application: application, userID: userID, caller: caller)
        return failures.keysToRead([user, address])
    }

    private static func ceremonyKeys(application: UUID, userID: String?, caller: Caller) -> (
        user: AbuseCounterKey, address: AbuseCounterKey
    ) {
        (
            key(.user, application.uuidString, userID ?? "", caller.clientAddress),
            key(.address, caller.clientAddress)
        )
    }

    /// Answers a wrong or missing admin token or API key: counts it against the caller's
    /// address, and throws 429 while that address is blocked, else `failure`. A valid token or
    /// key never comes here: limits stop guessing, not owners (docs/contract.md §4), so other
    /// callers' failures at the same address never lock its holder out.
    func refuseCredential(_ caller: Caller, counting: Bool = true, _ failure: ServiceError) async throws -> Never {
        let address = Self.key(.credential, caller.clientAddress)
        _ = try await refuseIfBlocked([address])
        if counting { await record(address, limit: limits.credentialFailures) }
        throw failure
    }

    /// Counts one request for ceremony options, which anyone may send and which stores a
    /// challenge: 429 past ``AbuseLimits/optionsRequests`` per address within the window.
    func countOptionsRequest(_ caller: Caller) throws {
        let address = Self.key(caller.clientAddress)
        let now = now()
        if let wait = optionsRequests.retryAfter(address, now: now) { throw Self.tooMany(wait) }
        if let block = optionsRequests.recordFailure(address, now: now) { logBlock("options", block) }
    }

    /// Device-grant user-code lookups answered from one address within the window (RFC 8628
    /// §5.1: a code of about 34.6 bits, tried at most this often per window and address).
    static let userCodeLookups = 10

    /// Runs a lookup of a typed device-grant user code: 429 while the caller's address is
    /// blocked. Every lookup is counted before it runs, found or not, and the block checked
    /// again after the count: the lookup past ``userCodeLookups`` sets the block and is refused
    /// by it, and so is every other of a burst sent at once, whichever instance counts it.
    func userCodeGuess<T>(_ caller: Caller, _ lookup: () async throws -> T?) async throws -> T? {
        let address = Self.key(.userCode, caller.clientAddress)
        _ = try await refuseIfBlocked([address])
        if let block = try await failures.recordFailure(
            address, limit: FailureLimit.userCode.limit(in: limits), now: now())
        {
            logBlock(address.counter, block)
        }
        _ = try await refuseIfBlocked([address])
        return try await lookup()
    }

    /// Recovery mails asked for one email address, and from one client address, within the window.
    static let recoveryMailsPerEmail = 3
    static let recoveryMailsPerClientAddress = 10

    /// Counts one request for a recovery mail (docs/self-service.md, "Recovery by email"): 429
    /// past ``recoveryMailsPerEmail`` for the address asked about, or past
    /// ``recoveryMailsPerClientAddress`` from the caller's address, within the window. Counted
    /// whether or not the address belongs to an account, so the answer tells nothing.
    func countRecoveryRequest(_ caller: Caller, email: String) throws {
        let now = now()
        let keys = [
            (recoveryMails, Self.key("recovery", email.lowercased())),
            (recoveryMailsByAddress, Self.key(caller.clientAddress)),
        ]
        for (counter, key) in keys {
            if let wait = counter.retryAfter(key, now: now) { throw Self.tooMany(wait) }
        }
        for (counter, key) in keys {
            if let block = counter.recordFailure(key, now: now) { logBlock("recovery mail", block) }
        }
    }

    /// Forgets keys whose window and blocks have passed; run on a timer (``AbuseSweep``), so
    /// memory (and the shared table) follows the recent callers rather than every caller since
    /// the start.
    func sweep() async throws {
        let now = now()
        optionsRequests.sweep(now: now)
        recoveryMails.sweep(now: now)
        recoveryMailsByAddress.sweep(now: now)
        try await failures.sweep(now: now)
    }

    /// The keys tracked in this process over all limits, for tests of the memory bound.
    var trackedKeys: Int {
        failures.trackedKeys + optionsRequests.trackedKeys + recoveryMails.trackedKeys
            + recoveryMailsByAddress.trackedKeys
    }

    /// A fixed-size key for the parts: SHA-256 over their UTF-8 bytes, each length-prefixed,
    /// so a long user id costs the limiter no more memory than a short one and two different
    /// byte strings never share a key, whatever Unicode says about them.
    static func key(_ parts: String...) -> String { key(parts) }

    private static func key(_ parts: [String]) -> String {
        var hasher = SHA256()
        for part in parts {
            let bytes = Array(part.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: bytes)
        }
        return Hex.encode(hasher.finalize().prefix(16))
    }

    private static func key(_ limit: FailureLimit, _ parts: String...) -> AbuseCounterKey {
        AbuseCounterKey(counter: limit.rawValue, key: key(parts))
    }

    private func refuseIfBlocked(_ keys: [AbuseCounterKey]) async throws -> FailureCheck {
        let check = try await failures.check(keys, now: now())
        if let wait = check.retryAfter { throw Self.tooMany(wait) }
        return check
    }

    private static func tooMany(_ wait: TimeInterval) -> ServiceError {
        let seconds = Int(wait.rounded(.up))
        return ServiceError(
            .rateLimited(retryAfterSeconds: seconds), "Too many failed attempts; try again in \(seconds) seconds")
    }

    /// Counts a failure; a store that cannot count it is logged, and the caller still gets
    /// the answer its request earned.
    private func record(_ key: AbuseCounterKey, limit: Int) async {
        do {
            if let block = try await failures.recordFailure(key, limit: limit, now: now()) {
                logBlock(key.counter, block)
            }
        } catch {
            logger.error(
                "abuse counter not recorded",
                metadata: ["abuse.kind": .string(key.counter), "error.message": .string("\(error)")])
        }
    }

    private func logBlock(_ kind: String, _ block: TimeInterval) {
        // The key holds a hashed user id and address, never a secret.
        logger.warning(
            "abuse limit reached",
            metadata: ["abuse.kind": .string(kind), "abuse.block_seconds": .stringConvertible(Int(block))])
    }
}

/// Sweeps the abuse limiter's expired keys every ``interval`` while the server runs.
struct AbuseSweep: Service {
    let abuse: AbuseGuard
    let logger: Logger
    var interval: Duration = .seconds(60)

    func run() async throws {
        await runPeriodically(every: interval) { [abuse, logger] in
            do {
                try await abuse.sweep()
            } catch {
                logger.error("abuse sweep failed", metadata: ["error.message": .string("\(error)")])
            }
        }
    }
}
