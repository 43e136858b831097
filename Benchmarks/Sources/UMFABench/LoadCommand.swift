import ArgumentParser
import AsyncHTTPClient
import Foundation
import UMFAAuthenticator
import UMFAWebAuthn

/// Complete logins (options → assertion signed with a real key → verify → token) or
/// registrations per second against a running server, from concurrent workers.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load", abstract: "HTTP load: complete logins or registrations per second.")

    enum Ceremony: String, ExpressibleByArgument {
        case login, registration
    }

    @Option(help: "Server base URL.") var server: String
    @Option(help: "Application id (policy open, origin --origin).") var app: String
    @Option(help: "The application's web origin; its host is the RP ID.") var origin: String
    @Option(help: "login or registration.") var ceremony: Ceremony = .login
    @Option(help: "Concurrent workers.") var concurrency: Int = 16
    @Option(help: "Users enrolled for the login load.") var users: Int = 64
    @Option(help: "Seconds of measured load (after a warm-up).") var seconds: Double = 10
    @Option(help: "Seconds of unmeasured warm-up.") var warmup: Double = 2
    @Option(help: "A prefix for the user ids this run creates.") var userPrefix: String = "bench"
    @Option(help: "Write every measured latency (ms, one per line) here, to merge runs of several processes.")
    var samples: String?
    @Option(help: "The server's process id: its CPU time over the measured window is reported.")
    var serverPid: Int32?
    @Option(help: "The server's /metrics URL: its store statements over the measured window are reported.")
    var metricsUrl: String?

    func run() async throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(concurrency, 8)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let api = UMFAAPI(client: http, server: server, applicationID: app)
        let measured: (result: LoadResult, cpu: Double, server: ServerProbe.Reading)
        do {
            measured = try await measure(api, http: http)
            try await http.shutdown()
        } catch {
            try? await http.shutdown()
            throw error
        }
        let (result, cpu, server) = measured
        if let samples {
            let lines = result.latencies.samples.map { String($0 * 1000) }.joined(separator: "\n")
            try Data(lines.utf8).write(to: URL(fileURLWithPath: samples))
        }
        try printJSON([
            "ceremony": ceremony.rawValue, "concurrency": concurrency, "users": users,
            "operations": result.operations, "errors": result.errors, "seconds": result.seconds,
            "per_second": Double(result.operations) / result.seconds,
            "p50_ms": result.latencies.percentile(0.50), "p99_ms": result.latencies.percentile(0.99),
            "generator_cpu_cores": cpu / result.seconds,
            "first_error": result.firstError ?? "",
            "server_cpu_seconds": server.serverCPU, "postgres_cpu_seconds": server.postgresCPU,
            "statements": server.statements,
        ])
    }

    /// Enrols the devices, warms up, then measures the load and this process's CPU time.
    /// With `--server-pid`, also what the server (and PostgreSQL) spent over the same window.
    private func measure(_ api: UMFAAPI, http: HTTPClient) async throws -> (
        result: LoadResult, cpu: Double, server: ServerProbe.Reading
    ) {
        let devices = try await prepareDevices(api)
        if warmup > 0 { _ = try await runWorkers(api, devices: devices, seconds: warmup) }
        let probe = serverPid.map { ServerProbe(pid: $0, metricsURL: metricsUrl) }
        let serverBefore = try await probe?.read(http)
        let cpuBefore = Measure.processCPUSeconds()
        let result = try await runWorkers(api, devices: devices, seconds: seconds)
        let cpu = Measure.processCPUSeconds() - cpuBefore
        var spent = ServerProbe.Reading()
        if let probe, let serverBefore {
            let after = try await probe.read(http)
            spent.serverCPU = after.serverCPU - serverBefore.serverCPU
            spent.postgresCPU = after.postgresCPU - serverBefore.postgresCPU
            spent.statements = after.statements - serverBefore.statements
        }
        return (result, cpu, spent)
    }

    /// For logins: one enrolled device per user, enrolled over HTTP like any client.
    private func prepareDevices(_ api: UMFAAPI) async throws -> [BenchDevice] {
        guard ceremony == .login else { return [] }
        let runID = UUID().uuidString.prefix(8)
        return try await withThrowingTaskGroup(of: BenchDevice.self) { group in
            var devices: [BenchDevice] = []
            for index in 0..<users {
                if index >= concurrency, let device = try await group.next() { devices.append(device) }
                group.addTask {
                    let device = BenchDevice(origin: origin, userID: "\(userPrefix)-\(runID)-\(index)")
                    try await device.enroll(api)
                    return device
                }
            }
            for try await device in group { devices.append(device) }
            return devices
        }
    }

    private func runWorkers(_ api: UMFAAPI, devices: [BenchDevice], seconds: Double) async throws -> LoadResult {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        let start = ContinuousClock.now
        let ceremony = self.ceremony
        let origin = self.origin
        let prefix = "\(userPrefix)-reg-\(UUID().uuidString.prefix(8))"
        let results = await withTaskGroup(of: LoadResult.self) { group in
            for worker in 0..<concurrency {
                // Each worker owns its own devices, so no two logins race on one sign counter.
                let owned = stride(from: worker, to: devices.count, by: concurrency).map { devices[$0] }
                group.addTask {
                    var result = LoadResult()
                    var iteration = 0
                    while ContinuousClock.now < deadline {
                        let begin = ContinuousClock.now
                        do {
                            switch ceremony {
                            case .login:
                                guard !owned.isEmpty else { return result }
                                try await owned[iteration % owned.count].login(api)
                            case .registration:
                                let device = BenchDevice(origin: origin, userID: "\(prefix)-\(worker)-\(iteration)")
                                try await device.enroll(api)
                            }
                            result.operations += 1
                            result.latencies.add((ContinuousClock.now - begin).seconds)
                        } catch {
                            result.errors += 1
                            if result.firstError == nil { result.firstError = "\(error)" }
                        }
                        iteration += 1
                    }
                    return result
                }
            }
            var total = LoadResult()
            for await partial in group { total.merge(partial) }
            return total
        }
        var total = results
        total.seconds = (ContinuousClock.now - start).seconds
        return total
    }
}

/// What the workers measured.
struct LoadResult: Sendable {
    var operations = 0
    var errors = 0
    var seconds = 0.0
    var latencies = Latencies()
    var firstError: String?

    mutating func merge(_ other: LoadResult) {
        operations += other.operations
        errors += other.errors
        latencies.merge(other.latencies)
        if firstError == nil { firstError = other.firstError }
    }
}
