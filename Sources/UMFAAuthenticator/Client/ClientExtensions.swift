import Crypto
import UMFAEncoding

/// The client extension processing ``WebAuthnClient`` does: `prf` (WebAuthn L3 §10.1.4) on
/// top of CTAP `hmac-secret`, `credProps` (§10.1.3) and `credProtect` (CTAP 2.1 §12.1).
enum ClientExtensions {
    /// A `prf` input pair, `AuthenticationExtensionsPRFValues`, with its base64url members decoded.
    struct PRFValues: Equatable {
        let first: [UInt8]
        let second: [UInt8]?

        /// Reads `{"first": base64url, "second"?: base64url}`.
        init(_ json: JSONValue) throws(AuthenticatorError) {
            guard let members = json.objectValue, let first = members["first"]?.stringValue,
                let firstBytes = Base64URL.decode(first)
            else { throw AuthenticatorError(.invalidData, "prf values need a base64url first") }
            self.first = firstBytes
            if let second = members["second"], second != .null {
                guard let text = second.stringValue, let bytes = Base64URL.decode(text) else {
                    throw AuthenticatorError(.invalidData, "prf second is not base64url")
                }
                self.second = bytes
            } else {
                self.second = nil
            }
        }

        init(first: [UInt8], second: [UInt8]?) {
            self.first = first
            self.second = second
        }

        /// L3 §10.1.4: `salt = SHA-256(UTF8Encode("WebAuthn PRF") || 0x00 || input)` for each input.
        var salts: HMACSecretSalts {
            get throws(AuthenticatorError) {
                try HMACSecretSalts(salt1: Self.salt(first), salt2: second.map(Self.salt))
            }
        }

        static func salt(_ input: [UInt8]) -> [UInt8] {
            Array(SHA256.hash(data: Array("WebAuthn PRF".utf8) + [0x00] + input))
        }
    }

    /// The `prf` extension input: `eval` and `evalByCredential` (keys base64url credential ids).
    struct PRFInput {
        let eval: PRFValues?
        let evalByCredential: [String: PRFValues]

        init?(_ extensions: [String: JSONValue]?) throws(AuthenticatorError) {
            guard let prf = extensions?["prf"] else { return nil }
            guard let members = prf.objectValue else { throw AuthenticatorError(.invalidData, "prf is not an object") }
            eval = try members["eval"].flatMap { (value) throws(AuthenticatorError) -> PRFValues? in
                value == .null ? nil : try PRFValues(value)
            }
            var byCredential: [String: PRFValues] = [:]
            for (id, value) in members["evalByCredential"]?.objectValue ?? [:] {
                byCredential[id] = try PRFValues(value)
            }
            evalByCredential = byCredential
        }
    }

    /// The `credProtect` inputs (CTAP 2.1 §12.1): the policy, `nil` when absent or unknown, and
    /// whether the relying party insists on it.
    static func credentialProtection(_ extensions: [String: JSONValue]?) -> (CredentialProtectionPolicy?, Bool) {
        let policy = extensions?["credentialProtectionPolicy"]?.stringValue.flatMap(
            CredentialProtectionPolicy.init(name:))
        return (policy, extensions?["enforceCredentialProtectionPolicy"]?.boolValue ?? false)
    }

    /// `{"first": base64url, "second"?: base64url}`, as a browser reports `prf.results` in JSON.
    static func results(_ output: HMACSecretOutput) -> JSONValue {
        var results: [String: JSONValue] = ["first": .string(Base64URL.encode(output.output1))]
        if let second = output.output2 { results["second"] = .string(Base64URL.encode(second)) }
        return .object(results)
    }
}
