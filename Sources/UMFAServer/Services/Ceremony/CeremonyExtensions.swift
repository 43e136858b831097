import UMFAContract
import UMFAEncoding
import UMFAStorage

/// What options carry beyond the ceremony's basics: hints (WebAuthn L3 §5.4, §5.5), preferred
/// attestation formats (§5.4) and the extension inputs `credProps` (§10.1.3),
/// `credentialProtectionPolicy` (CTAP 2.1 §12.1 `credProtect`) and `prf` (§10.1.4). The
/// application's settings give the defaults; an options request may give its own hints and
/// PRF inputs, checked here. PRF outputs are the client's secret: the server passes inputs on
/// and reads only `prf.enabled` back, never `prf.results`.
struct CeremonyExtensions: Sendable {
    /// Hints in place of the application's; `nil` keeps the application's.
    var hints: [CredentialHintSetting]?
    /// PRF inputs to pass on, already checked.
    var prf: PRFRequestJSON?

    /// The largest PRF input taken, in bytes (the client hashes each into a 32-byte salt).
    static let maximumPRFInputBytes = 256
    /// The most `evalByCredential` entries taken.
    static let maximumPRFCredentials = 100

    /// Nothing beyond the application's settings.
    init() {}

    /// An options request's own hints and PRF inputs; 400 naming the member when one is malformed.
    /// - Parameter registration: creation options, where `evalByCredential` has no meaning.
    init(hints: [String]?, prf: PRFRequestJSON?, registration: Bool) throws {
        self.hints = try hints.map { try Self.hints($0, field: "hints") }
        if let prf { try Self.check(prf, registration: registration) }
        self.prf = prf
    }

    /// Hints as a request or a setting gives them: distinct `PublicKeyCredentialHint` values
    /// (§5.8.7), in order of preference.
    static func hints(_ values: [String], field: String) throws -> [CredentialHintSetting] {
        let parsed = values.compactMap(CredentialHintSetting.init(rawValue:))
        guard parsed.count == values.count, Set(parsed).count == parsed.count else {
            throw ServiceError.invalid(
                "\(field) must be distinct values of security-key, client-device and hybrid", field: field)
        }
        return parsed
    }

    /// The hints, attestation formats and extension inputs of `application`'s creation options.
    func registration(_ application: ApplicationRecord)
        -> (hints: [String]?, attestationFormats: [String]?, extensions: [String: JSONValue])
    {
        let preferences = application.ceremonyPreferences
        var extensions = LoginTokens.requestedExtensions
        // §10.1.3: the client says whether it made a discoverable credential (`rk`).
        extensions["credProps"] = .bool(true)
        // CTAP 2.1 §12.1, as WebAuthn clients take it (`credentialProtectionPolicy`).
        if let policy = preferences.credentialProtectionPolicy {
            extensions["credentialProtectionPolicy"] = .string(policy.rawValue)
            extensions["enforceCredentialProtectionPolicy"] = .bool(preferences.enforceCredentialProtectionPolicy)
        }
        if let prf { extensions["prf"] = .object(Self.members(prf, allowed: [])) }
        let formats = preferences.attestationFormats
        return (hintValues(application), formats.isEmpty ? nil : formats, extensions)
    }

    /// The hints and extension inputs of `application`'s request options. `evalByCredential`
    /// keeps only the credentials `allowCredentials` lists (§10.1.4 makes a client refuse any
    /// other), so the answer for an unknown user looks like the one for a known user.
    func authentication(_ application: ApplicationRecord, allowCredentials: [[UInt8]])
        -> (hints: [String]?, extensions: [String: JSONValue])
    {
        var extensions = LoginTokens.requestedExtensions
        if let prf { extensions["prf"] = .object(Self.members(prf, allowed: allowCredentials)) }
        return (hintValues(application), extensions)
    }

    /// What the client said of a new credential (§10.1.3 `credProps.rk`, §10.1.4 `prf.enabled`);
    /// `nil` for what it did not say. Only these two booleans are read from the client's outputs.
    static func registrationOutputs(_ results: [String: JSONValue]) -> (discoverable: Bool?, prfEnabled: Bool?) {
        (results["credProps"]?.objectValue?["rk"]?.boolValue, results["prf"]?.objectValue?["enabled"]?.boolValue)
    }

    private func hintValues(_ application: ApplicationRecord) -> [String]? {
        let values = (hints ?? application.ceremonyPreferences.hints).map(\.rawValue)
        return values.isEmpty ? nil : values
    }

    /// The `prf` input object, inputs in canonical base64url.
    private static func members(_ prf: PRFRequestJSON, allowed: [[UInt8]]) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        if let eval = prf.eval { members["eval"] = values(eval) }
        var byCredential: [String: JSONValue] = [:]
        for (id, inputs) in prf.evalByCredential ?? [:] {
            guard let bytes = Base64URL.decode(id), allowed.contains(bytes) else { continue }
            byCredential[Base64URL.encode(bytes)] = values(inputs)
        }
        if !byCredential.isEmpty { members["evalByCredential"] = .object(byCredential) }
        return members
    }

    private static func values(_ inputs: PRFValuesJSON) -> JSONValue {
        var members: [String: JSONValue] = [:]
        members["first"] = Base64URL.decode(inputs.first).map { .string(Base64URL.encode($0)) }
        members["second"] = inputs.second.flatMap(Base64URL.decode).map { .string(Base64URL.encode($0)) }
        return .object(members)
    }

    private static func check(_ prf: PRFRequestJSON, registration: Bool) throws {
        if let eval = prf.eval { try check(eval, field: "prf.eval") }
        guard let byCredential = prf.evalByCredential else { return }
        guard !registration else {
            throw ServiceError.invalid(
                "prf.evalByCredential is for sign-in only (WebAuthn L3 §10.1.4)", field: "prf.evalByCredential")
        }
        guard byCredential.count <= maximumPRFCredentials,
            byCredential.keys.allSatisfy({ Base64URL.decode($0).map { !$0.isEmpty } ?? false })
        else {
            throw ServiceError.invalid(
                "prf.evalByCredential must map at most \(maximumPRFCredentials) base64url credential ids to inputs",
                field: "prf.evalByCredential")
        }
        for inputs in byCredential.values { try check(inputs, field: "prf.evalByCredential") }
    }

    private static func check(_ inputs: PRFValuesJSON, field: String) throws {
        for input in [inputs.first] + (inputs.second.map { [$0] } ?? []) {
            guard let bytes = Base64URL.decode(input), (1...maximumPRFInputBytes).contains(bytes.count) else {
                throw ServiceError.invalid(
                    "\(field) inputs must be base64url of 1 to \(maximumPRFInputBytes) bytes", field: field)
            }
        }
    }
}
