import Foundation
import UMFAEncoding

/// What an authorization request asks of the sign-in's authentication context
/// (docs/oidc-provider.md, "Authentication context and step-up"): `acr_values` (OpenID Connect
/// Core §3.1.2.1) and a voluntary `acr` claim with values are a preference; an essential `acr`
/// claim of the `claims` parameter (§5.5.1.1) is a requirement, and a sign-in below it never
/// gets a code.
struct AuthenticationRequirement: Codable, Sendable, Equatable {
    /// The lowest level a preference names (UMFA's levels only; other values are ignored).
    var preferred: AuthenticationLevel?
    /// The lowest level an essential `acr` claim accepts.
    var required: AuthenticationLevel?
    /// The levels an essential `acr` claim names: the ID token's `acr` is one of them (Core
    /// §5.5.1.1), the highest the sign-in reached.
    var requiredValues: [AuthenticationLevel]? = nil

    /// The level the tokens of a sign-in that reached `level` name: with an essential `acr`,
    /// the highest of its values `level` reaches (Core §5.5.1.1: one of the values asked for);
    /// else `level` itself.
    func claimed(for level: AuthenticationLevel) -> AuthenticationLevel {
        requiredValues?.filter { $0 <= level }.max() ?? level
    }

    /// Whether a sign-in that reached `level` may answer the request.
    func isMet(by level: AuthenticationLevel) -> Bool {
        required.map { level >= $0 } ?? true
    }

    /// The level the sign-in should reach: the higher of the preference and the requirement.
    var wanted: AuthenticationLevel? { [preferred, required].compactMap { $0 }.max() }

    /// Whether a sign-in that reached `level` is below what the request asks for, as a
    /// preference or a requirement: a session's sign-in is then stepped up.
    func asksMore(than level: AuthenticationLevel) -> Bool {
        wanted.map { level < $0 } ?? false
    }

    /// The lowest of UMFA's levels `values` name; `nil` when they name none of them.
    static func lowest(_ values: [String]) -> AuthenticationLevel? {
        values.compactMap { AuthenticationLevel(acr: $0) }.min()
    }
}

/// The `claims` request parameter (OpenID Connect Core §5.5): the standard claims a client asks
/// for individually, in the ID token or at userinfo, and what it asks of `acr`.
struct ClaimsParameter: Sendable, Equatable {
    /// The claim names of `id_token` and `userinfo`, as given.
    var names: Set<String> = []
    /// The `acr` member of `id_token`: whether it is essential, and its `value` or `values`.
    var acr: (essential: Bool, values: [String])?

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.names == rhs.names && lhs.acr?.essential == rhs.acr?.essential && lhs.acr?.values == rhs.acr?.values
    }

    /// The longest `claims` value taken, in bytes.
    static let longest = 4096

    /// The scope that releases each standard claim UMFA has (`UserProfileService.claims`): a
    /// claim asked for individually is granted, consented to and released with its scope.
    static let scopeOfClaim: [String: String] = [
        "email": "email", "email_verified": "email", "name": "profile", "given_name": "profile",
        "family_name": "profile", "updated_at": "profile", "phone_number": "phone", "phone_number_verified": "phone",
    ]

    /// Why a `claims` value is refused (`invalid_request`).
    struct Invalid: Error {
        let reason: String
    }

    /// Parses `text`, a JSON object whose `id_token` and `userinfo` members map claim names to
    /// `null` or to an object with `essential`, `value` and `values` (§5.5.1); other members are
    /// ignored, as §5.5 asks.
    static func parse(_ text: String) throws(Invalid) -> ClaimsParameter {
        guard text.utf8.count <= longest else { throw Invalid(reason: "claims is longer than \(longest) bytes") }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8)) else {
            throw Invalid(reason: "claims must be a JSON object")
        }
        var parameter = ClaimsParameter()
        for target in ["id_token", "userinfo"] {
            guard let member = object[target] else { continue }
            guard case .object(let requests) = member else {
                throw Invalid(reason: "claims.\(target) must be a JSON object")
            }
            for (name, request) in requests {
                let (essential, values) = try Self.request(request, name: "claims.\(target).\(name)")
                parameter.names.insert(name)
                if name == "acr", target == "id_token" { parameter.acr = (essential, values) }
            }
        }
        return parameter
    }

    /// `null`, or an object with `essential` (a boolean), `value` (a string) and `values` (an
    /// array of strings), §5.5.1.
    /// Other claims' `value` and `values` have the claim's own type (§5.5.1) and are not read.
    private static func request(_ value: JSONValue, name: String) throws(Invalid) -> (Bool, [String]) {
        if case .null = value { return (false, []) }
        guard case .object(let members) = value else { throw Invalid(reason: "\(name) must be null or an object") }
        var essential = false
        if let given = members["essential"] {
            guard case .bool(let flag) = given else { throw Invalid(reason: "\(name).essential must be a boolean") }
            essential = flag
        }
        var values: [String] = []
        guard name.hasSuffix(".acr") else { return (essential, values) }
        if let given = members["value"] {
            guard let text = given.stringValue else { throw Invalid(reason: "\(name).value must be a string") }
            values.append(text)
        }
        if let given = members["values"] {
            guard case .array(let items) = given else {
                throw Invalid(reason: "\(name).values must be an array of strings")
            }
            for item in items {
                guard let text = item.stringValue else {
                    throw Invalid(reason: "\(name).values must be an array of strings")
                }
                values.append(text)
            }
        }
        return (essential, values)
    }

    /// The scopes that release the claims asked for.
    var scopes: [String] {
        Array(Set(names.compactMap { Self.scopeOfClaim[$0] })).sorted()
    }
}
