/// One or two PRF inputs (`AuthenticationExtensionsPRFValues`, WebAuthn L3 §10.1.4), base64url.
public struct PRFValuesJSON: Codable, Sendable, Equatable {
    /// The first input, base64url.
    public var first: String
    /// The second input, base64url; absent for one output.
    public var second: String?

    /// Creates inputs.
    public init(first: String, second: String? = nil) {
        self.first = first
        self.second = second
    }
}

/// The `prf` member of an options request (`AuthenticationExtensionsPRFInputs`, WebAuthn L3
/// §10.1.4): what the server passes to the client as the `prf` extension input. The outputs
/// stay with the client; the server never sees them.
public struct PRFRequestJSON: Codable, Sendable, Equatable {
    /// Inputs for any credential.
    public var eval: PRFValuesJSON?
    /// Inputs per credential id (base64url); sign-in only, for a named user.
    public var evalByCredential: [String: PRFValuesJSON]?

    /// Creates a request; `PRFRequestJSON()` asks only whether the credential supports PRF.
    public init(eval: PRFValuesJSON? = nil, evalByCredential: [String: PRFValuesJSON]? = nil) {
        self.eval = eval
        self.evalByCredential = evalByCredential
    }

    /// An example with every member.
    static let example = PRFRequestJSON(
        eval: PRFValuesJSON(first: "c2FsdC0x", second: "c2FsdC0y"),
        evalByCredential: ["AQIDBA": PRFValuesJSON(first: "c2FsdC0z")])
}
