import AsyncHTTPClient
import Foundation
import NIOCore

/// What a running server spent over a window of load, read from outside it: its process's CPU
/// time (`/proc/PID/stat`, user + system), that of every PostgreSQL process on the machine,
/// and its store statements (the `_count` of `umfa_store_query_duration_seconds` in `/metrics`).
struct ServerProbe: Sendable {
    let pid: Int32
    let metricsURL: String?

    struct Reading: Sendable {
        var serverCPU = 0.0
        var postgresCPU = 0.0
        var statements = 0.0
    }

    func read(_ client: HTTPClient) async throws -> Reading {
        var reading = Reading()
        reading.serverCPU = Self.cpuSeconds(statFile: "/proc/\(pid)/stat") ?? 0
        reading.postgresCPU = Self.postgresCPUSeconds()
        if let metricsURL {
            let response = try await client.execute(HTTPClientRequest(url: metricsURL), timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 16 << 20)
            reading.statements = Self.statementCount(String(buffer: body))
        }
        return reading
    }

    /// The sum of every statement histogram's `_count`.
    static func statementCount(_ exposition: String) -> Double {
        var total = 0.0
        for line in exposition.split(separator: "\n")
        where line.hasPrefix("umfa_store_query_duration_seconds_count") {
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { total += value }
        }
        return total
    }

    /// utime + stime of one process, in seconds.
    static func cpuSeconds(statFile: String) -> Double? {
        guard let text = try? String(contentsOfFile: statFile, encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Every process named `postgres` (0 on SQLite).
    static func postgresCPUSeconds() -> Double {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        var total = 0.0
        for entry in entries where entry.first?.isNumber == true {
            guard let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                text.contains("(postgres)")
            else { continue }
            total += cpuSeconds(statFile: "/proc/\(entry)/stat") ?? 0
        }
        return total
    }
}
