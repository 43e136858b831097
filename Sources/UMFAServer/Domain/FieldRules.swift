import Foundation
import UMFAEncoding
import UMFAStorage

/// The rules every stored name and id meets, whichever feature takes it (docs/contract.md §4:
/// lengths are bytes, since one character can carry thousands of combining marks).
enum FieldRules {
    /// Checks a `user_id`: 1 to 256 bytes of UTF-8. `login_hint` shares the rule (``LoginHint``).
    static func checkUserID(_ userID: String) throws {
        guard (1...256).contains(userID.byteCount) else {
            throw ServiceError.invalid("user_id must be 1 to 256 bytes of UTF-8")
        }
        try refuseNUL(userID, field: "user_id")
    }

    /// Refuses U+0000 in a value that is stored: PostgreSQL text cannot hold it and SQLite
    /// would, so both engines refuse it here alike (400, never a database error).
    static func refuseNUL(_ value: String, field: String) throws {
        guard !value.utf8.contains(0) else { throw ServiceError.invalid("\(field) must not contain U+0000") }
    }

    /// Checks an optional name against its limit in UTF-8 bytes (`display_name` 256,
    /// `device_name` 128).
    static func checkName(_ name: String?, field: String, maximumBytes: Int) throws {
        guard let name else { return }
        guard name.byteCount <= maximumBytes else {
            throw ServiceError.invalid("\(field) must be at most \(maximumBytes) bytes of UTF-8")
        }
        try refuseNUL(name, field: field)
    }
}

extension ApplicationStore {
    /// Looks an application up for a device-facing route; unknown ids are a 400 there, since
    /// 404 is reserved for the API-key and admin routes.
    func application(_ text: String) async throws -> ApplicationRecord {
        guard let id = UUID(uuidString: text) else { throw ServiceError.invalid("application_id must be a UUID") }
        guard let application = try await application(id: id) else {
            throw ServiceError.unknownApplication
        }
        return application
    }
}

extension ServiceError {
    /// A device-facing route's answer to an application id no application has.
    static var unknownApplication: ServiceError { .invalid("Unknown application_id") }
}

extension ApplicationStore {
    /// Looks an application up for an admin route, by the id in its path: 404 when unknown.
    func administeredApplication(_ text: String?) async throws -> ApplicationRecord {
        guard let text, let id = UUID(uuidString: text) else {
            throw ServiceError.invalid("The application id must be a UUID")
        }
        guard let application = try await application(id: id) else {
            throw ServiceError.notFound("Unknown application")
        }
        return application
    }
}
