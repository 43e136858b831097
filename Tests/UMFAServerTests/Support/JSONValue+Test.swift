import Foundation
import Hummingbird
import Testing
import UMFAEncoding
import UMFATestSupport
import UMFAWebAuthn

extension JSONValue {
    /// A member of an object.
    subscript(_ key: String) -> JSONValue? { objectValue?[key] }

    /// A whole number.
    var intValue: Int? {
        if case .number(let number) = self { return Int(exactly: number) }
        return nil
    }

    /// The elements of an array.
    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Any `Encodable` value as JSON.
    static func encoding(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    /// This JSON as a `Decodable` type.
    func decoded<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }

    /// This JSON as compact text.
    func text() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }
}

/// Checks the documented error shape: exactly `{status, trace_id, message}` (and `reason` when
/// one is expected), `status` equal to the HTTP status, a trace id (the given one, or a new
/// UUID), and the message.
func expectError(
    _ reply: Reply, _ status: HTTPResponse.Status, message: String? = nil, containing fragment: String? = nil,
    traceID: String? = nil, reason: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
    guard let members = reply.json?.objectValue else {
        Issue.record("the error body is not a JSON object: \(reply.text)", sourceLocation: sourceLocation)
        return
    }
    let expected: Set<String> =
        reason == nil ? ["status", "trace_id", "message"] : ["status", "trace_id", "message", "reason"]
    #expect(Set(members.keys) == expected, sourceLocation: sourceLocation)
    if let reason { #expect(members["reason"]?.stringValue == reason, sourceLocation: sourceLocation) }
    #expect(members["status"]?.intValue == Int(status.code), sourceLocation: sourceLocation)
    let echoed = members["trace_id"]?.stringValue
    if let traceID {
        #expect(echoed == traceID, sourceLocation: sourceLocation)
    } else {
        #expect(
            echoed.flatMap(UUID.init(uuidString:)) != nil, "trace_id \(echoed ?? "none")",
            sourceLocation: sourceLocation)
    }
    let text = members["message"]?.stringValue ?? ""
    #expect(!text.isEmpty, sourceLocation: sourceLocation)
    if let message { #expect(text == message, sourceLocation: sourceLocation) }
    if let fragment { #expect(text.contains(fragment), "\(text)", sourceLocation: sourceLocation) }
}

/// Checks that a success answer carries the given trace id, or a new UUID when none was sent.
func expectTraceID(_ reply: Reply, _ traceID: String?, sourceLocation: SourceLocation = #_sourceLocation) {
    let echoed = reply["trace_id"]?.stringValue
    if let traceID {
        #expect(echoed == traceID, sourceLocation: sourceLocation)
    } else {
        #expect(
            echoed.flatMap(UUID.init(uuidString:)) != nil, "trace_id \(echoed ?? "none")",
            sourceLocation: sourceLocation)
    }
}
