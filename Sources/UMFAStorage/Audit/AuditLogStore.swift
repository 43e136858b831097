import Foundation
import UMFAEncoding

/// One security event of the audit log (docs/contract.md §8), as stored: never a secret in any field.
package struct AuditEventRecord: Sendable, Equatable {
    /// A time-ordered id (UUID version 7, lower case): unique on every instance.
    package var id: String
    /// When it happened.
    package var occurredAt: Date
    /// The application it concerns; `nil` for server-wide events (an admin signing in).
    package var applicationID: UUID?
    /// What happened: `registration.succeeded`, `credential.deleted`, …
    package var action: String
    /// Who did it: `user:<user id>`, `api_key:<key id>`, `admin`, `client:<client id>`, `anonymous`.
    package var actor: String
    /// The user it concerns.
    package var userID: String?
    /// The credential it concerns, base64url.
    package var credentialID: String?
    /// The address of the client whose request caused it.
    package var clientAddress: String
    /// The trace id of that request.
    package var traceID: String
    /// What else an operator needs to know, without secrets.
    package var details: [String: JSONValue]

    /// Creates an event.
    package init(
        id: String, occurredAt: Date, applicationID: UUID?, action: String, actor: String, userID: String? = nil,
        credentialID: String? = nil, clientAddress: String, traceID: String, details: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.occurredAt = occurredAt
        self.applicationID = applicationID
        self.action = action
        self.actor = actor
        self.userID = userID
        self.credentialID = credentialID
        self.clientAddress = clientAddress
        self.traceID = traceID
        self.details = details
    }
}

/// Which events a reader wants: every member that is set must match.
package struct AuditEventFilter: Sendable, Equatable {
    /// Only this application's events.
    package var applicationID: UUID?
    /// Only this user's events.
    package var userID: String?
    /// Only this action.
    package var action: String?
    /// Events at or after this time.
    package var since: Date?
    /// Events before this time.
    package var until: Date?

    /// Creates a filter.
    package init(
        applicationID: UUID? = nil, userID: String? = nil, action: String? = nil, since: Date? = nil,
        until: Date? = nil
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.action = action
        self.since = since
        self.until = until
    }
}

/// Where a page of events ended: the next page starts after this event.
package struct AuditCursor: Sendable, Equatable {
    /// The last event's time, in milliseconds since 1970.
    package var occurredAtMilliseconds: Int64
    /// The last event's id.
    package var id: String

    /// Creates a cursor at an event.
    package init(occurredAtMilliseconds: Int64, id: String) {
        self.occurredAtMilliseconds = occurredAtMilliseconds
        self.id = id
    }

    /// The cursor after `event`.
    package init(after event: AuditEventRecord) {
        self.init(occurredAtMilliseconds: StoredValue.milliseconds(event.occurredAt), id: event.id)
    }
}

/// The audit log, shared by every instance on the database: appended to, read oldest first in
/// pages, and trimmed to the retention period.
package protocol AuditLogStore: Sendable {
    /// Appends an event.
    func insertAuditEvent(_ event: AuditEventRecord) async throws
    /// Up to `limit` events matching `filter`, oldest first (ties by id), after `cursor`.
    func auditEvents(_ filter: AuditEventFilter, after cursor: AuditCursor?, limit: Int) async throws
        -> [AuditEventRecord]
    /// Removes the events that happened before `date`; the number removed.
    @discardableResult
    func purgeAuditEvents(before date: Date) async throws -> Int
}

extension StoreQueries {
    static let auditEventColumns =
        "id, occurred_at, application_id, action, actor, user_id, credential_id, client_address, trace_id, details"

    static func insertAuditEvent(_ event: AuditEventRecord) -> StoreQuery {
        StoreQuery(
            "INSERT INTO audit_events (\(auditEventColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            auditEventValues(event))
    }

    /// The values of ``auditEventColumns`` for `event`, in order.
    static func auditEventValues(_ event: AuditEventRecord) -> [StoreQuery.Value] {
        [
            .text(event.id), .date(event.occurredAt), event.applicationID.map { .uuid($0) } ?? .null,
            .text(event.action), .text(event.actor), event.userID.map { .text($0) } ?? .null,
            event.credentialID.map { .text($0) } ?? .null, .text(event.clientAddress), .text(event.traceID),
            .text(StoredValue.json(encoding: event.details)),
        ]
    }

    static func auditEvents(_ filter: AuditEventFilter, after cursor: AuditCursor?, limit: Int) -> StoreQuery {
        var clauses: [String] = []
        var values: [StoreQuery.Value] = []
        if let applicationID = filter.applicationID {
            clauses.append("application_id = ?")
            values.append(.uuid(applicationID))
        }
        if let userID = filter.userID {
            clauses.append("user_id = ?")
            values.append(.text(userID))
        }
        if let action = filter.action {
            clauses.append("action = ?")
            values.append(.text(action))
        }
        if let since = filter.since {
            clauses.append("occurred_at >= ?")
            values.append(.date(since))
        }
        if let until = filter.until {
            clauses.append("occurred_at < ?")
            values.append(.date(until))
        }
        if let cursor {
            clauses.append("(occurred_at > ? OR (occurred_at = ? AND id > ?))")
            values += [
                .integer(cursor.occurredAtMilliseconds), .integer(cursor.occurredAtMilliseconds), .text(cursor.id),
            ]
        }
        let condition = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        values.append(.integer(Int64(limit)))
        return StoreQuery("SELECT * FROM audit_events \(condition) ORDER BY occurred_at, id LIMIT ?", values)
    }

    static func purgeAuditEvents(before date: Date) -> StoreQuery {
        StoreQuery("DELETE FROM audit_events WHERE occurred_at < ? RETURNING id", [.date(date)])
    }
}

extension AuditEventRecord {
    init(row: any StoredRow) throws {
        let applicationID = try row.optionalText("application_id").map { text in
            guard let id = UUID(uuidString: text) else { throw StoreError(.corrupt, "an audit event's application id") }
            return id
        }
        self.init(
            id: try row.text("id"), occurredAt: try row.date("occurred_at"), applicationID: applicationID,
            action: try row.text("action"), actor: try row.text("actor"), userID: row.optionalText("user_id"),
            credentialID: row.optionalText("credential_id"), clientAddress: try row.text("client_address"),
            traceID: try row.text("trace_id"),
            details: try StoredValue.decoded([String: JSONValue].self, from: try row.text("details")))
    }
}

extension SQLStore {
    func insertAuditEvent(_ event: AuditEventRecord) async throws {
        _ = try await executor.rows(StoreQueries.insertAuditEvent(event))
    }

    func auditEvents(_ filter: AuditEventFilter, after cursor: AuditCursor?, limit: Int) async throws
        -> [AuditEventRecord]
    {
        try await executor.rows(StoreQueries.auditEvents(filter, after: cursor, limit: limit)).map(
            AuditEventRecord.init(row:))
    }

    func purgeAuditEvents(before date: Date) async throws -> Int {
        try await executor.rows(StoreQueries.purgeAuditEvents(before: date)).count
    }
}
