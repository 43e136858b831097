/// The secrets a user can verify with on the software authenticator.
public enum SecretKind: String, Codable, Sendable, Hashable {
    /// A numeric or short PIN.
    case pin
    /// A password.
    case password
}

/// Verification methods a platform performs itself (Face ID, fingerprint, device passcode).
public enum PlatformVerificationMethod: String, Codable, Sendable, Hashable {
    /// A fingerprint or face check by the operating system.
    case biometric
    /// The device's own passcode.
    case devicePasscode
    /// A test harness that declares the user verified; the virtual authenticator's `--uv`.
    case simulated
}

/// How the user was verified for one operation. The authenticator sets the UV flag only
/// for a secret it checked itself or a platform method that confirmed the user.
public enum UserVerification: Sendable, Hashable {
    /// User presence only; UV stays clear.
    case none
    /// A PIN or password entered now; the authenticator checks it by unsealing the key.
    case secret(SecretKind, String)
    /// A platform verifier confirmed the user.
    case confirmedByPlatform(PlatformVerificationMethod)

    /// Whether the authenticator may set UV after this verification (secrets once checked).
    var isVerification: Bool {
        if case .none = self { return false }
        return true
    }
}

/// A platform's user verifier (biometric, device passcode). None ships on Linux, and UMFA
/// does not pretend one exists: an app on a platform that has one supplies it.
public protocol PlatformUserVerifier: Sendable {
    /// The method this verifier uses.
    var method: PlatformVerificationMethod { get }
    /// Asks the user to verify; `true` when they did.
    func verifyUser(reason: String) async throws -> Bool
}

extension UserVerification {
    /// The FIDO `uvm` extension entry for this verification (FIDO Registry §3.1
    /// USER_VERIFY_*, key protection SOFTWARE, matcher protection SOFTWARE), or `nil` when
    /// nothing was verified or the method has no honest registry value.
    var userVerificationMethodEntry: [UInt32]? {
        switch self {
        case .none: return nil
        case .secret(.pin, _): return [0x0000_0004, 0x0001, 0x0001]
        case .secret(.password, _): return [0x0000_0800, 0x0001, 0x0001]
        case .confirmedByPlatform(.biometric): return [0x0000_0002, 0x0001, 0x0001]
        case .confirmedByPlatform(.devicePasscode): return [0x0000_0004, 0x0001, 0x0001]
        case .confirmedByPlatform(.simulated): return nil
        }
    }
}
