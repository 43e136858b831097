import UMFAEncoding

/// The `prf` extension (WebAuthn L3 §10.1.4) as an app meets it: the input a relying party or
/// app puts in `extensions`, and the outputs a response reports in `clientExtensionResults`.
public struct PRFResults: Sendable, Hashable {
    /// The output for `eval.first`: 32 bytes.
    public let first: [UInt8]
    /// The output for `eval.second`, when one was given.
    public let second: [UInt8]?

    /// Reads `clientExtensionResults.prf.results`; `nil` when the response has no results (the
    /// credential or authenticator does not support PRF, or none was asked for).
    public init?(clientExtensionResults: [String: JSONValue]) {
        guard case .object(let results)? = clientExtensionResults["prf"]?.objectValue?["results"],
            let text = results["first"]?.stringValue, let first = Base64URL.decode(text)
        else { return nil }
        self.first = first
        second = results["second"]?.stringValue.flatMap(Base64URL.decode)
    }

    /// Whether a registration response reports `prf.enabled: true`; `nil` when it reports no `prf`.
    public static func enabled(in clientExtensionResults: [String: JSONValue]) -> Bool? {
        guard let prf = clientExtensionResults["prf"]?.objectValue else { return nil }
        return prf["enabled"]?.boolValue ?? false
    }

    /// The `prf` extension input `{"eval": {"first": …, "second": …}}` for one or two inputs.
    public static func input(first: [UInt8], second: [UInt8]? = nil) -> JSONValue {
        var values: [String: JSONValue] = ["first": .string(Base64URL.encode(first))]
        if let second { values["second"] = .string(Base64URL.encode(second)) }
        return .object(["eval": .object(values)])
    }
}
