import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Reads the audit log for `GET /api/admin/audit-events` (every application) and
/// `GET /api/umfa/audit-events` (the API key's own application): filters from the query,
/// oldest first, in pages joined by an opaque cursor.
struct AuditEventService: Sendable {
    let apiKeys: APIKeyAuthentication
    let store: any AuditLogStore

    /// Events per page when `limit` is not given, and the most a page holds.
    static let defaultLimit = 100
    static let maximumLimit = 1000

    /// Every application's events, for the admin.
    func all(values: RequestValues, caller: Caller) async throws -> AuditEventListResponse {
        var filter = try Self.filter(values)
        if let text = values.query("application_id") {
            guard let id = UUID(uuidString: text) else { throw ServiceError.invalid("application_id must be a UUID") }
            filter.applicationID = id
        }
        return try await page(filter, values: values, caller: caller)
    }

    /// One application's events, for its backend.
    func application(values: RequestValues, caller: Caller) async throws -> AuditEventListResponse {
        let application =
            try await apiKeys
            .application(for: caller, applicationID: values.query("application_id"))
        var filter = try Self.filter(values)
        filter.applicationID = application.id
        return try await page(filter, values: values, caller: caller)
    }

    private func page(_ filter: AuditEventFilter, values: RequestValues, caller: Caller) async throws
        -> AuditEventListResponse
    {
        let limit = try Self.limit(values.query("limit"))
        let cursor = try values.query("cursor").map(Self.cursor)
        // One more than asked tells whether another page follows.
        var events = try await store.auditEvents(filter, after: cursor, limit: limit + 1)
        let more = events.count > limit
        if more { events.removeLast() }
        return AuditEventListResponse(
            traceID: caller.traceID, events: events.map(Self.view),
            nextCursor: more ? events.last.map { Self.cursorText(AuditCursor(after: $0)) } : nil)
    }

    static func filter(_ values: RequestValues) throws -> AuditEventFilter {
        AuditEventFilter(
            userID: values.query("user_id"), action: values.query("action"),
            since: try values.query("since").map { try time($0, name: "since") },
            until: try values.query("until").map { try time($0, name: "until") })
    }

    static func time(_ text: String, name: String) throws -> Date {
        guard let date = Timestamps.parse(text) else {
            throw ServiceError.invalid("\(name) must be an RFC 3339 time, such as 2026-11-23T10:00:00Z")
        }
        return date
    }

    static func limit(_ text: String?) throws -> Int {
        guard let text else { return defaultLimit }
        guard let limit = Int(text), (1...maximumLimit).contains(limit) else {
            throw ServiceError.invalid("limit must be a whole number from 1 to \(maximumLimit)")
        }
        return limit
    }

    /// `<milliseconds>.<id>`, base64url: opaque to clients.
    static func cursorText(_ cursor: AuditCursor) -> String {
        Base64URL.encode(Array("\(cursor.occurredAtMilliseconds).\(cursor.id)".utf8))
    }

    static func cursor(_ text: String) throws -> AuditCursor {
        let invalid = ServiceError.invalid("cursor is not one this server gave (pass next_cursor as it came)")
        guard let bytes = Base64URL.decode(text), let plain = String(bytes: bytes, encoding: .utf8),
            let dot = plain.firstIndex(of: "."), let milliseconds = Int64(plain[..<dot])
        else { throw invalid }
        let id = String(plain[plain.index(after: dot)...])
        guard !id.isEmpty, id.utf8.count <= 64 else { throw invalid }
        return AuditCursor(occurredAtMilliseconds: milliseconds, id: id)
    }

    static func view(_ event: AuditEventRecord) -> AuditEvent {
        AuditEvent(
            id: event.id, occurredAt: Timestamps.rfc3339(event.occurredAt),
            applicationID: event.applicationID?.uuidString.lowercased(), action: event.action, actor: event.actor,
            userID: event.userID, credentialID: event.credentialID, clientAddress: event.clientAddress,
            traceID: event.traceID, details: event.details)
    }
}
