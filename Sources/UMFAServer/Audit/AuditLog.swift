import Foundation
import Logging
import Synchronization
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn

/// Writes the audit log (docs/contract.md §8): one row per security event, with the request's trace
/// id and client address. Callers pass details without secrets; the log never sees a token,
/// key, code or PIN.
///
/// An event is written after the change it records succeeded, in the same request. A store that
/// fails to take the event is logged as an error and does not undo the change. A sign-in's
/// success is written with its change instead (``event(_:application:actor:userID:credentialID:caller:details:at:)``,
/// docs/operators/audit.md), and ``written(_:)`` follows it.
struct AuditLog: Sendable {
    let store: any AuditLogStore
    let logger: Logger
    let now: @Sendable () -> Date
    /// Mails the owner of an account the notices its events call for; none when `nil`.
    var notices: SecurityNotices? = nil

    /// Records `action`.
    func record(
        _ action: AuditAction, application: UUID?, actor: AuditActor, userID: String? = nil,
        credentialID: [UInt8]? = nil, caller: Caller, details: [String: JSONValue] = [:]
    ) async {
        let event = self.event(
            action, application: application, actor: actor, userID: userID, credentialID: credentialID,
            caller: caller, details: details, at: now())
        do {
            try await store.insertAuditEvent(event)
        } catch {
            logger.error(
                "the audit log did not take an event",
                metadata: [
                    "audit.action": .string(action.rawValue), "trace.id": .string(caller.traceID),
                    "error.message": .string("\(error)"),
                ])
        }
        await notices?.after(event)
    }

    /// What follows an event a store wrote with the change it records (see ``event(_:application:actor:userID:credentialID:caller:details:at:)``):
    /// the notices it calls for.
    func written(_ event: AuditEventRecord) async {
        await notices?.after(event)
    }

    /// The event that records `action` at `date`, for a store to write with the change it
    /// records, in one transaction.
    func event(
        _ action: AuditAction, application: UUID?, actor: AuditActor, userID: String? = nil,
        credentialID: [UInt8]? = nil, caller: Caller, details: [String: JSONValue] = [:], at date: Date
    ) -> AuditEventRecord {
        AuditEventRecord(
            id: TimeOrderedID.next(at: date), occurredAt: date, applicationID: application, action: action.rawValue,
            actor: actor.text, userID: userID, credentialID: credentialID.map(Base64URL.encode),
            clientAddress: caller.clientAddress, traceID: caller.traceID, details: details)
    }

    /// The actor an API-key caller is: its key's id (the first bytes of the key's hash).
    static func apiKeyActor(_ caller: Caller) -> AuditActor {
        caller.bearer.map { .apiKey(APIKeyRecord.keyID(forHash: Secrets.hash($0))) } ?? .anonymous
    }
}

/// Time-ordered ids (audit events, webhook deliveries): UUID version 7 (RFC 9562 §5.7), the 12 bits after the version a
/// counter within one millisecond, so the events of one instance sort in the order they were
/// written; across instances, events of the same millisecond sort by their random bits.
enum TimeOrderedID {
    private static let last = Mutex<(milliseconds: Int64, sequence: UInt16)>((0, 0))

    static func next(at date: Date) -> String {
        let now = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (milliseconds, sequence) = last.withLock { state -> (Int64, UInt16) in
            if now > state.milliseconds || state.sequence >= 0x0FFF {
                state = (max(now, state.milliseconds + (state.sequence >= 0x0FFF ? 1 : 0)), 0)
            } else {
                state.sequence += 1
            }
            return state
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * index)) }
        bytes[6] = 0x70 | UInt8(sequence >> 8)
        bytes[7] = UInt8(truncatingIfNeeded: sequence)
        let random = SecureRandom.bytes(8)
        bytes[8] = 0x80 | (random[0] & 0x3F)
        for index in 9..<16 { bytes[index] = random[index - 8] }
        return UUIDText.lowercase(bytes)
    }
}
