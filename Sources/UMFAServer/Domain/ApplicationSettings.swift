import Foundation
import UMFAStorage
import UMFAWebAuthn

extension ApplicationRecord {
    /// The relying-party policy this application's ceremonies run under.
    var relyingPartyPolicy: RelyingPartyPolicy {
        RelyingPartyPolicy(
            rpID: rpID, origins: OriginPolicy(allowed: Set(origins)),
            userVerification: UserVerificationRequirement(rawValue: userVerification))
    }

    /// The description the admin API gives, with the `open` policy warning.
    var policyDescription: String {
        switch enrollmentPolicy {
        case .grant:
            return "grant: every registration needs an enrollment token from the application's backend"
        case .open:
            return
                "open (development only): whoever first names a user_id can enroll it, so an attacker could pre-register someone else's account"
        }
    }
}

/// Validation of application settings from the admin API.
enum ApplicationSettingsValidation {
    static let userVerificationValues = ["required", "preferred", "discouraged"]
    static let attestationValues = ["none", "indirect", "direct", "enterprise"]

    /// Checks an origin: a web origin without path, or a native-app origin.
    static func isValidOrigin(_ origin: String) -> Bool {
        if origin.hasPrefix("ios:bundle-id:") { return origin.count > "ios:bundle-id:".count }
        if origin.hasPrefix("android:apk-key-hash:") {
            return Base64URL.decode(String(origin.dropFirst("android:apk-key-hash:".count))).map { !$0.isEmpty }
                ?? false
        }
        guard let components = URLComponents(string: origin), let scheme = components.scheme,
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty,
            components.path.isEmpty, components.query == nil, components.fragment == nil, components.user == nil
        else { return false }
        return true
    }

    /// Checks an RP ID: a lowercase domain name without scheme or port.
    static func isValidRPID(_ rpID: String) -> Bool {
        guard !rpID.isEmpty, rpID.count <= 253, rpID == rpID.lowercased() else { return false }
        return rpID.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }
}
