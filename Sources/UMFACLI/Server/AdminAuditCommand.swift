import ArgumentParser
import Foundation
import UMFAContract
import UMFAEncoding
import UMFAWebAuthn

extension AdminCommand {
    /// `umfa admin audit`: the audit log (docs/contract.md §8), every page of it, oldest first.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit", abstract: "Print the audit log, oldest first (every page).",
            discussion: """
                --since and --until take an RFC 3339 time (2026-11-23T10:00:00Z) or an age: 30m, 24h, 7d.
                jsonl prints one event per line; json prints one array.
                """)
        @OptionGroup var connection: AdminConnection
        @Option(help: "Only this application's events.") var app: String?
        @Option(help: "Only this user's events.") var user: String?
        @Option(help: "Only this action, such as authentication.failed.") var action: String?
        @Option(help: "Events at or after this time or age.") var since: String?
        @Option(help: "Events before this time or age.") var until: String?
        @Option(help: "Stop after this many events.") var limit: Int?
        @Option(help: "jsonl (default) or json.") var format = "jsonl"
        @Option(name: .customLong("page-size"), help: .hidden) var pageSize = 1000

        func validate() throws {
            guard ["jsonl", "json"].contains(format) else { throw ValidationError("--format must be jsonl or json") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
            guard (1...1000).contains(pageSize) else { throw ValidationError("--page-size must be 1 to 1000") }
        }

        func run() async throws {
            var filters: [URLQueryItem] = []
            if let app { filters.append(URLQueryItem(name: "application_id", value: app)) }
            if let user { filters.append(URLQueryItem(name: "user_id", value: user)) }
            if let action { filters.append(URLQueryItem(name: "action", value: action)) }
            let now = Date()
            if let since { filters.append(URLQueryItem(name: "since", value: try Self.time(since, now: now))) }
            if let until { filters.append(URLQueryItem(name: "until", value: try Self.time(until, now: now))) }
            var events: [AuditEvent] = []
            var cursor: String?
            repeat {
                let size = min(pageSize, limit.map { $0 - events.count } ?? pageSize)
                var query = filters + [URLQueryItem(name: "limit", value: String(size))]
                if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
                let reply = try await connection.send(.listAuditEvents, query: query)
                guard reply.status == 200,
                    let page = try? JSONDecoder().decode(AuditEventListResponse.self, from: reply.body)
                else {
                    try HTTPClient.finish(reply)
                    throw ExitCode(1)
                }
                if format == "jsonl" {
                    for event in page.events { try CommandIO.printJSON(event) }
                }
                events += page.events
                cursor = page.nextCursor
            } while cursor != nil && events.count < (limit ?? .max)
            if format == "json" { try CommandIO.printJSON(events) }
        }

        /// An RFC 3339 time as given, or an age (`30m`, `24h`, `7d`) before `now`.
        static func time(_ text: String, now: Date) throws -> String {
            if Timestamps.parse(text) != nil { return text }
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            guard let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count >= 0 else {
                throw ValidationError("\(text) is neither an RFC 3339 time nor an age such as 24h or 7d")
            }
            return Timestamps.rfc3339(now.addingTimeInterval(-count * unit))
        }
    }
}
