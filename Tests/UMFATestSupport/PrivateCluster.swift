import Foundation

/// A PostgreSQL cluster of the test's own, from the binaries scripts/with-postgres.sh found,
/// so a test may crash, stop and restart it without disturbing the tests sharing the main one.
public struct PrivateCluster: Sendable {
    /// The folder of the cluster's data, socket and log.
    public let directory: String
    /// The TCP port the server listens on (127.0.0.1).
    public let port: Int
    /// `runuser -u postgres --` when running as root, else empty.
    public let runAs: String
    /// The folder of `pg_ctl`, `initdb` and `psql`.
    public let binaries: String

    /// A generous connect timeout: the cluster has just started on a machine busy with the suite.
    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres?connect_timeout=15" }

    /// Below Linux's ephemeral range (32768–60999): a port in it can be taken by any outgoing
    /// connection between choosing it and the server binding it, or while a test has the
    /// server stopped, and pg_ctl then fails with "Address already in use".
    public static let ports = 20_000..<30_000

    /// Creates and starts a cluster on a free-looking port.
    public static func start() async throws -> PrivateCluster {
        guard let control = ProcessInfo.processInfo.environment["UMFA_TEST_PGCTL"], !control.isEmpty else {
            throw Shell.Failure("UMFA_TEST_PGCTL is not set: run through scripts/with-postgres.sh")
        }
        let words = control.split(separator: " ").map(String.init)
        guard let index = words.firstIndex(where: { $0.hasSuffix("/pg_ctl") }) else {
            throw Shell.Failure("UMFA_TEST_PGCTL does not name pg_ctl: \(control)")
        }
        let binaries = (words[index] as NSString).deletingLastPathComponent
        let runAs = words[..<index].joined(separator: " ")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-pg-\(UUID().uuidString)")
            .path
        let cluster = PrivateCluster(
            directory: directory, port: Int.random(in: PrivateCluster.ports), runAs: runAs, binaries: binaries)
        try await Shell.run("mkdir -p '\(directory)' && chmod 755 '\(directory)'")
        if !runAs.isEmpty { try await Shell.run("chown postgres '\(directory)'") }
        try await Shell.run(
            "\(runAs) '\(binaries)/initdb' -D '\(directory)/data' -U postgres --auth=trust -E UTF8 >/dev/null")
        // A port that looked free can be taken by another test's cluster or server before ours
        // binds it: try up to three ports before giving up.
        var attempt = cluster
        for _ in 1..<3 {
            do {
                try await attempt.startServer()
                return attempt
            } catch {
                try? await attempt.crash()
                attempt = attempt.onAnotherPort()
            }
        }
        try await attempt.startServer()
        return attempt
    }

    /// The same cluster, to be started on another port.
    public func onAnotherPort() -> PrivateCluster {
        PrivateCluster(directory: directory, port: Int.random(in: Self.ports), runAs: runAs, binaries: binaries)
    }

    /// Starts the server and waits until it accepts connections.
    public func startServer() async throws {
        try await Shell.run(
            "\(runAs) '\(binaries)/pg_ctl' -D '\(directory)/data' -l '\(directory)/server.log' -w "
                + "-o '-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 "
                + "-c max_connections=40 -c shared_buffers=16MB' start >/dev/null")
        // `pg_ctl -w` returns once the server says it is ready; on a loaded machine the first
        // TCP connection can still lag, so wait (up to 60 s) until one query over TCP answers.
        try await Shell.run(
            "for i in $(seq 120); do \(runAs) '\(binaries)/psql' -h 127.0.0.1 -p \(port) -U postgres "
                + "-d postgres -qAtc 'SELECT 1' >/dev/null 2>&1 && exit 0; sleep 0.5; done; exit 1")
    }

    /// Stops the server the hard way, as a crash would: no checkpoint, connections cut.
    public func crash() async throws {
        try await Shell.run("\(runAs) '\(binaries)/pg_ctl' -D '\(directory)/data' -m immediate stop >/dev/null")
    }

    /// Stops the server and removes the cluster.
    public func remove() async {
        try? await crash()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
