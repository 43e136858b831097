import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// An application that reports when its own server is listening, so a test that chose the port
/// first (to know its public URL before the server starts) can tell its server from another
/// process or test that took the same port in between.
public struct BindReportingApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    /// The base application's responder type.
    public typealias Responder = Base.Responder

    let base: Base
    let bound: BindSignal

    /// `base`, settling `bound` once its server listens.
    public init(base: Base, bound: BindSignal) {
        self.base = base
        self.bound = bound
    }

    /// The base application's.
    public var responder: Responder { get async throws { try await base.responder } }
    /// The base application's.
    public var server: HTTPServerBuilder { base.server }
    /// The base application's.
    public var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    /// The base application's.
    public var configuration: ApplicationConfiguration { base.configuration }
    /// The base application's.
    public var logger: Logger { base.logger }
    /// The base application's.
    public var services: [any Service] { base.services }
    /// The base application's.
    public var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }

    /// The base application's, then the signal that this server listens.
    @Sendable public func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        bound.settle(true)
    }
}

/// Whether the server bound its port (`true`) or its run ended first (`false`), settled once.
public final class BindSignal: Sendable {
    /// An unsettled signal.
    public init() {}

    private let state = Mutex<(outcome: Bool?, waiters: [CheckedContinuation<Bool, Never>])>((nil, []))

    /// Settles the outcome; only the first call counts.
    public func settle(_ outcome: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// The outcome, once settled.
    public func value() async -> Bool {
        await withCheckedContinuation { continuation in
            let known: Bool? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}

/// The chosen port was taken by someone else before the server bound it.
public struct PortTaken: Error {
    /// The error.
    public init() {}
}
