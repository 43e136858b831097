import Foundation
import UMFAEncoding

/// An `application/x-www-form-urlencoded` body (the OAuth endpoints' request format): each
/// parameter at most once (RFC 6749 §3.2), UTF-8, no U+0000.
struct OAuthForm: Sendable {
    private var values: [String: String]

    /// Parses `data`; any defect is `invalid_request` naming it.
    init(_ data: Data, contentType: String?) throws {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw OAuthError.invalidRequest("The body must be application/x-www-form-urlencoded")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw OAuthError.invalidRequest("The body is not UTF-8")
        }
        try self.init(encoded: text)
    }

    /// Parses form-encoded `text` (a body, or the query of an authorization request).
    init(encoded text: String) throws {
        var values: [String: String] = [:]
        // By byte, as the URL Standard's parser splits: `&` followed by a combining mark is one
        // Swift `Character` but two parameters to every other reader (docs/contract.md §4).
        for pair in ASCIISplit.split(text, at: "&") {
            let parts = ASCIISplit.split(pair, at: "=", maxSplits: 1, omittingEmpty: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                throw OAuthError.invalidRequest("The body is not valid form encoding")
            }
            guard values[name] == nil else { throw OAuthError.invalidRequest("\(name) is given more than once") }
            guard !name.utf8.contains(0), !value.utf8.contains(0) else {
                throw OAuthError.invalidRequest("Parameters must not contain U+0000")
            }
            values[name] = value
        }
        self.values = values
    }

    /// The parameters `values`, already decoded (a request object's, RFC 9101).
    init(_ values: [String: String]) { self.values = values }

    /// A parameter; an empty one counts as absent (RFC 6749 §3.1).
    subscript(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// The same form with `name` set to `value`.
    func with(_ name: String, _ value: String) -> OAuthForm {
        var copy = self
        copy.values[name] = value
        return copy
    }

    /// A parameter that must be present.
    func require(_ name: String) throws -> String {
        guard let value = self[name] else { throw OAuthError.invalidRequest("\(name) is required") }
        return value
    }

    private static func decode(_ part: Substring) -> String? {
        PercentEncoding.decode(part, plusAsSpace: true)
    }
}
