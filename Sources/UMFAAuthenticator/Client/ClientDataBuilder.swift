import Foundation
import UMFAEncoding
import UMFAWebAuthnModel

/// Serialises `CollectedClientData` the way browsers do (WebAuthn L3 §5.8.1.1): `type`,
/// `challenge`, `origin`, `crossOrigin`, then `topOrigin` when present, in that order.
enum ClientDataBuilder {
    static func json(type: String, challenge: [UInt8], origin: String, topOrigin: String?) -> [UInt8] {
        var text = "{\"type\":\(quoted(type)),\"challenge\":\(quoted(Base64URL.encode(challenge)))"
        text += ",\"origin\":\(quoted(origin)),\"crossOrigin\":\(topOrigin == nil ? "false" : "true")"
        if let topOrigin { text += ",\"topOrigin\":\(quoted(topOrigin))" }
        text += "}"
        return Array(text.utf8)
    }

    /// A JSON string literal for `value`.
    static func quoted(_ value: String) -> String {
        var output = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}

/// The RP ID rules a browser applies before calling an authenticator (WebAuthn L3 §5.1.3
/// step 8, §5.1.4.1 step 8).
public enum RelyingPartyIDCheck {
    /// The RP ID to use: the requested one when it is valid for `origin`, else `nil`.
    ///
    /// A web origin's host must equal the RP ID or end with `.` + RP ID, over HTTPS or on
    /// `localhost`; native-app origins (`ios:…`, `android:…`) are vouched for by the platform.
    public static func effectiveRPID(requested: String?, origin: String) -> String? {
        guard origin.hasPrefix("https://") || origin.hasPrefix("http://") else {
            return requested
        }
        guard let components = URLComponents(string: origin), let host = components.host?.lowercased(),
            !host.isEmpty
        else { return nil }
        if components.scheme == "http", host != "localhost", !host.hasSuffix(".localhost") { return nil }
        let rpID = (requested ?? host).lowercased()
        guard host == rpID || host.hasSuffix("." + rpID) else { return nil }
        return rpID
    }
}
