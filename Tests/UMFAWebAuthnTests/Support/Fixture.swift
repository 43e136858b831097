import Foundation
import UMFAEncoding
import UMFAWebAuthn

/// The relying party every synthetic test talks to, and a fixed clock.
enum Fixture {
    static let rpID = "example.org"
    static let origin = "https://example.org"
    static let topOrigin = "https://example.com"
    /// 2025-06-15T14:40:00Z: every certificate the tests make is valid then.
    static let now = Date(timeIntervalSince1970: 1_750_000_800)
    static let challenge: [UInt8] = Array(0..<32)
    static let userHandle: [UInt8] = Array("user-handle-alice".utf8)
    static let otherUserHandle: [UInt8] = Array("user-handle-bob".utf8)
    static let aaguid: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
    ]

    /// A policy for `example.org` served from `https://example.org`, changed by `adjust`.
    static func policy(
        origins: Set<String> = [origin], _ adjust: (inout RelyingPartyPolicy) -> Void = { _ in }
    ) -> RelyingPartyPolicy {
        var policy = RelyingPartyPolicy(rpID: rpID, origins: OriginPolicy(allowed: origins))
        adjust(&policy)
        return policy
    }

    /// A random credential id of `count` bytes.
    static func credentialID(count: Int = 32) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255) }
    }
}

/// The client data a test client serialises, with one knob per field the verifiers check.
struct ClientDataOptions {
    var type: String
    var challenge: String
    var origin = Fixture.origin
    var crossOrigin: Bool? = false
    var topOrigin: String?
    /// Prefix the JSON with a UTF-8 byte order mark.
    var byteOrderMark = false
    /// Send these bytes instead of the JSON the other fields describe.
    var rawOverride: [UInt8]?

    init(type: String, challenge: [UInt8]) {
        self.type = type
        self.challenge = Base64URL.encode(challenge)
    }

    /// `clientDataJSON` as a browser would send it.
    var bytes: [UInt8] {
        if let rawOverride { return rawOverride }
        var members = [
            ("type", Self.quoted(type)), ("challenge", Self.quoted(challenge)), ("origin", Self.quoted(origin)),
        ]
        if let crossOrigin { members.append(("crossOrigin", crossOrigin ? "true" : "false")) }
        if let topOrigin { members.append(("topOrigin", Self.quoted(topOrigin))) }
        let json = "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        return (byteOrderMark ? [0xef, 0xbb, 0xbf] : []) + Array(json.utf8)
    }

    private static func quoted(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(escaped)\""
    }
}
