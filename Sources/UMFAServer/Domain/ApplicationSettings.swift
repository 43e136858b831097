import Foundation
import UMFAEncoding
import UMFAStorage
import UMFAWebAuthn
import UMFAWebAuthnTypes

extension ApplicationRecord {
    /// The relying-party policy this application's ceremonies run under: its origins and its
    /// related origins (WebAuthn L3 §5.11) are the origins `clientDataJSON.origin` may name.
    var relyingPartyPolicy: RelyingPartyPolicy {
        RelyingPartyPolicy(
            rpID: rpID, origins: OriginPolicy(allowed: Set(origins + relatedOrigins)),
            userVerification: UserVerificationRequirement(rawValue: userVerification.rawValue))
    }

    /// The policy registrations run under: the application's attestation acceptance judged
    /// against the server's attestation roots and FIDO metadata (§7.1 steps 23–24).
    func registrationPolicy(anchors: AttestationTrustAnchors) -> RelyingPartyPolicy {
        var policy = relyingPartyPolicy
        policy.trustAnchors = anchors
        var acceptance: AttestationPolicy
        switch attestationPolicy {
        case .trusted: acceptance = .trustedOnly
        case .selfOrTrusted: acceptance = .selfOrTrusted
        case .any: acceptance = AttestationPolicy()
        }
        acceptance.aaguidAllow = aaguidAllow.map(Set.init)
        acceptance.aaguidDeny = Set(aaguidDeny)
        policy.attestation = acceptance
        return policy
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
    /// Checks that the attestation policy can be met and the AAGUID lists.
    static func validateAttestation(_ application: ApplicationRecord) throws {
        // With conveyance none, browsers replace every attestation with `none`, which only
        // `any` accepts.
        guard application.attestationPolicy == .any || application.attestation != .none else {
            throw ServiceError.invalid(
                "attestation_policy \(application.attestationPolicy.rawValue) needs attestation direct, indirect or enterprise"
            )
        }
        let lists = (application.aaguidAllow ?? []) + application.aaguidDeny
        guard lists.count <= 1000, lists.allSatisfy({ UUID(uuidString: $0) != nil }) else {
            throw ServiceError.invalid("aaguid_allow and aaguid_deny must hold AAGUIDs (UUIDs)")
        }
    }

    /// Checks the native apps an application publishes: Apple app ids `TEAMID.bundle.id` (a
    /// 10-character team id), Android package names (Java package syntax) with SHA-256
    /// certificate fingerprints (32 colon-separated hex bytes), at most 50 of each.
    static func validateNativeApps(_ application: ApplicationRecord) throws {
        guard application.appleAppIDs.count <= 50, application.appleAppIDs.allSatisfy(isAppleAppID) else {
            throw ServiceError.invalid(
                "apple_app_ids must be at most 50 app ids TEAMID.bundle.id (a 10-character team id, then the bundle id)"
            )
        }
        guard application.androidApps.count <= 50,
            application.androidApps.allSatisfy({ app in
                isAndroidPackage(app.packageName) && (1...10).contains(app.sha256CertFingerprints.count)
                    && app.sha256CertFingerprints.allSatisfy(isCertificateFingerprint)
            })
        else {
            throw ServiceError.invalid(
                "android_apps must be at most 50 {package_name, sha256_cert_fingerprints} with a Java package name "
                    + "and 1 to 10 fingerprints of 32 colon-separated hex bytes")
        }
    }

    /// Checks the resource indicators (RFC 8707 §2): at most 50 distinct absolute URIs of at
    /// most 2,000 bytes, without a fragment.
    static func validateResourceIndicators(_ application: ApplicationRecord) throws {
        let resources = application.resourceIndicators
        guard resources.count <= 50, Set(resources).count == resources.count,
            resources.allSatisfy({ resource in
                guard resource.utf8.count <= 2000, let url = URLComponents(string: resource),
                    let scheme = url.scheme, !scheme.isEmpty, url.fragment == nil
                else { return false }
                return !(url.host ?? "").isEmpty || scheme.lowercased() == "urn"
            })
        else {
            throw ServiceError.invalid(
                "resource_indicators must be at most 50 distinct absolute URIs without a fragment (RFC 8707 §2)")
        }
    }

    private static func isAppleAppID(_ id: String) -> Bool {
        let parts = id.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 10, id.utf8.count <= 255,
            parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })
        else { return false }
        return !parts[1].isEmpty
            && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }

    private static func isAndroidPackage(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, name.utf8.count <= 255 else { return false }
        return segments.allSatisfy { segment in
            guard let first = segment.first, first.isASCII, first.isLetter else { return false }
            return segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
    }

    private static func isCertificateFingerprint(_ text: String) -> Bool {
        let bytes = text.split(separator: ":", omittingEmptySubsequences: false)
        return bytes.count == 32 && bytes.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

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
