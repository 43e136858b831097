import Foundation

/// Related origins (WebAuthn L3 §5.11, "Using Web Authentication across related origins"): web
/// origins of other sites that may run ceremonies for an application's RP ID. A browser that
/// supports Related Origin Requests fetches `https://<rp_id>/.well-known/webauthn` and lets an
/// origin on the document's `origins` list use the RP ID (§5.11.1); the relying party then
/// accepts that origin in `clientDataJSON.origin` (§7.1 step 9, §7.2 step 13).
///
/// A client counts the distinct *labels* of the listed origins and stops after five (§5.11.1
/// step 3, `maxLabels`): the label of an origin is the first label of its registrable domain
/// (the domain one label longer than its public suffix), so `https://www.shop.co.uk` and
/// `https://shop.de` share the label `shop`. UMFA refuses a list of more than five labels, which
/// a client would cut short.
enum RelatedOrigins {
    /// The most labels a client is bound to honour (§5.11.1, `maxLabels`).
    static let maxLabels = 5
    /// The most related origins an application may list.
    static let maxOrigins = 50
    /// The wire name of the setting, named by every refusal.
    static let field = "related_origins"

    /// Second-level labels that form a public suffix under a two-letter country code
    /// (`co.uk`, `com.au`, `ne.jp`): UMFA's stand-in for the Public Suffix List, whose full
    /// list a server should not need to carry.
    static let countrySecondLevels: Set<String> = [
        "ac", "co", "com", "edu", "gob", "go", "gov", "gouv", "ltd", "me", "mil", "ne", "net", "nic", "nom", "or",
        "org", "plc", "sch",
    ]

    /// The label of a web origin's host (see the type's description); `nil` for a host that has
    /// none, such as an IP address, which a client skips (§5.11.1 step 3).
    static func label(ofHost host: String) -> String? {
        let host = host.lowercased()
        guard !host.isEmpty, !host.contains(":"), !host.hasPrefix("["), !host.hasSuffix(".") else { return nil }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard labels.allSatisfy({ !$0.isEmpty }), !labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) else {
            return nil
        }
        guard labels.count > 1 else { return labels[0] }
        let count = labels.count
        if count >= 3, labels[count - 1].count == 2, countrySecondLevels.contains(labels[count - 2]) {
            return labels[count - 3]
        }
        return labels[count - 2]
    }

    /// The label of an origin such as `https://www.shop.example`; `nil` when it has none.
    static func label(ofOrigin origin: String) -> String? {
        URLComponents(string: origin)?.host.flatMap(label(ofHost:))
    }

    /// The distinct labels of `origins`, in the order a client meets them.
    static func labels(_ origins: [String]) -> [String] {
        var seen: [String] = []
        for name in origins.compactMap(label(ofOrigin:)) where !seen.contains(name) { seen.append(name) }
        return seen
    }

    /// Checks an application's related origins: at most ``maxOrigins`` distinct web origins
    /// (`https://host[:port]`, `http` only for `localhost` and its subdomains, no path, query
    /// or fragment, a host with a label) of at most ``maxLabels`` labels. Throws a 400 naming
    /// `related_origins`.
    static func validate(_ origins: [String]) throws {
        guard origins.count <= maxOrigins, Set(origins).count == origins.count else {
            throw ServiceError.invalid(
                "related_origins must be at most \(maxOrigins) distinct origins", field: field)
        }
        for origin in origins {
            guard isRelatedOrigin(origin) else {
                throw ServiceError.invalid(
                    "related_origins: \(origin) is not a web origin https://host[:port] "
                        + "(http only for localhost) without a path", field: field)
            }
        }
        try checkLabels(origins, context: "related_origins")
    }

    /// Refuses `origins` when they hold more than ``maxLabels`` distinct labels.
    static func checkLabels(_ origins: [String], context: String) throws {
        let distinct = labels(origins)
        guard distinct.count <= maxLabels else {
            throw ServiceError.invalid(
                "\(context) name \(distinct.count) distinct labels (\(distinct.joined(separator: ", "))); "
                    + "clients honour at most \(maxLabels) (WebAuthn L3 §5.11.1)", field: field)
        }
    }

    /// The related origins every application of one RP ID publishes together: the applications
    /// oldest first, each one's list in its order, duplicates removed.
    static func merged(_ lists: [[String]]) -> [String] {
        var seen = Set<String>()
        return lists.joined().filter { seen.insert($0).inserted }
    }

    private static func isRelatedOrigin(_ origin: String) -> Bool {
        guard origin.hasPrefix("https://") || origin.hasPrefix("http://"),
            ApplicationSettingsValidation.isValidOrigin(origin), let components = URLComponents(string: origin),
            let host = components.host, host == host.lowercased(), label(ofHost: host) != nil
        else { return false }
        return components.scheme == "https" || host == "localhost" || host.hasSuffix(".localhost")
    }
}
