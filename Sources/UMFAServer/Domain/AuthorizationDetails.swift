import Foundation
import UMFAContract
import UMFAEncoding

/// Rich authorization requests (RFC 9396): what a client asks the person to authorize, as a JSON
/// array of objects whose `type` is one the application declares (its setting
/// `authorization_details_types`). The same value goes from the request (authorization, PAR,
/// CIBA, an out-of-band approval) to the device, which shows its ``canonicalText`` and signs it,
/// and on to the token response, the access token and introspection (docs/ciba.md).
struct AuthorizationDetails: Sendable, Hashable, Codable {
    /// The entries, as the client sent them.
    let entries: [[String: JSONValue]]

    /// The most entries one request may carry.
    static let maximumEntries = 10
    /// The most bytes of the JSON text.
    static let maximumBytes = 8192
    /// The deepest nesting of objects and arrays inside an entry.
    static let maximumDepth = 6
    /// The most values (leaves) of all entries together, and the longest member name.
    static let maximumLeaves = 100
    static let maximumNameBytes = 64
    /// RFC 9396 §2.2's common members, and the JSON type each must have.
    static let stringArrays = ["locations", "actions", "datatypes", "privileges"]

    /// Why a value was refused (RFC 9396 §5 `invalid_authorization_details`).
    struct Invalid: Error, Equatable {
        let reason: String
    }

    /// Parses `text` and checks every entry against the declared `types` (RFC 9396 §2, §5).
    static func parse(_ text: String, types: [String]) throws(Invalid) -> AuthorizationDetails {
        guard text.utf8.count <= maximumBytes else {
            throw Invalid(reason: "authorization_details is longer than \(maximumBytes) bytes")
        }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw Invalid(reason: "authorization_details must be a JSON array of objects")
        }
        return try check(value, types: types)
    }

    /// Checks a parsed value (the approval API's JSON member) as ``parse(_:types:)`` does, its
    /// JSON text held to the same size.
    static func check(_ value: JSONValue, types: [String]) throws(Invalid) -> AuthorizationDetails {
        guard let encoded = try? JSONEncoder().encode(value), encoded.count <= maximumBytes else {
            throw Invalid(reason: "authorization_details is longer than \(maximumBytes) bytes")
        }
        guard case .array(let items) = value, !items.isEmpty, items.count <= maximumEntries else {
            throw Invalid(
                reason: "authorization_details must be a JSON array of 1 to \(maximumEntries) objects")
        }
        var entries: [[String: JSONValue]] = []
        for item in items {
            guard case .object(let entry) = item else {
                throw Invalid(reason: "each authorization_details entry must be a JSON object")
            }
            guard case .string(let type) = entry["type"] else {
                throw Invalid(reason: "each authorization_details entry needs a type string")
            }
            // Step 1 (§5): a type this application declares; nothing else is understood.
            guard types.contains(type) else {
                throw Invalid(reason: "authorization_details type \(LogText.escape(type)) is not supported")
            }
            // Step 2 (§2.2): the common members have their defined shapes.
            for name in stringArrays {
                guard let member = entry[name] else { continue }
                guard case .array(let values) = member,
                    values.allSatisfy({ if case .string = $0 { true } else { false } })
                else { throw Invalid(reason: "authorization_details \(name) must be an array of strings") }
            }
            if let identifier = entry["identifier"] {
                guard case .string = identifier else {
                    throw Invalid(reason: "authorization_details identifier must be a string")
                }
            }
            guard depth(item) <= maximumDepth else {
                throw Invalid(reason: "authorization_details is nested more than \(maximumDepth) levels")
            }
            entries.append(entry)
        }
        // Step 3: a text a phone can show: few leaves, short names, a bounded text.
        var leaves = 0
        guard entries.allSatisfy({ walk(.object($0), leaves: &leaves) }), leaves <= maximumLeaves else {
            throw Invalid(
                reason: "authorization_details may hold at most \(maximumLeaves) values, with member names of at most "
                    + "\(maximumNameBytes) bytes")
        }
        let details = AuthorizationDetails(entries: entries)
        guard details.canonicalText.utf8.count <= maximumBytes else {
            throw Invalid(reason: "the text of authorization_details is longer than \(maximumBytes) bytes")
        }
        return details
    }

    /// The value as JSON, for tokens and answers.
    var json: JSONValue { .array(entries.map(JSONValue.object)) }

    /// The canonical text the device shows and the passkey signs (``AuthorizationDetailsText``).
    var canonicalText: String { AuthorizationDetailsText.canonical(entries) }

    /// Counts the leaves of `value` into `leaves`; `false` at a member name longer than
    /// ``maximumNameBytes``.
    private static func walk(_ value: JSONValue, leaves: inout Int) -> Bool {
        switch value {
        case .object(let members):
            if members.isEmpty { leaves += 1 }
            return members.allSatisfy { $0.key.utf8.count <= maximumNameBytes && walk($0.value, leaves: &leaves) }
        case .array(let items):
            if items.isEmpty { leaves += 1 }
            return items.allSatisfy { walk($0, leaves: &leaves) }
        default:
            leaves += 1
            return true
        }
    }

    private static func depth(_ value: JSONValue) -> Int {
        switch value {
        case .object(let members): 1 + (members.values.map(depth).max() ?? 0)
        case .array(let items): 1 + (items.map(depth).max() ?? 0)
        default: 0
        }
    }

    /// The text the device shows for an approval: the message, then the details' canonical text.
    static func approvalText(message: String, details: AuthorizationDetails?) -> String {
        guard let details else { return message }
        return message.isEmpty ? details.canonicalText : message + "\n\n" + details.canonicalText
    }
}
