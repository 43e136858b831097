import Foundation
import UMFAEncoding
import UMFAWebAuthnModel

/// What ``UMFAClient/checkEnrollment(userId:)`` reports.
public struct EnrollmentStatus: Sendable, Hashable {
    /// The user.
    public let userId: String
    /// Whether this device holds a passkey for the user.
    public let enrolled: Bool
    /// The passkey's credential id, base64url.
    public let credentialId: String?
    /// When it was enrolled.
    public let enrolledAt: Date?

    /// The completion-handler form: `enrolled`, `user_id`, and when enrolled `credential_id`, `enrolled_at`.
    public var dictionary: [String: Any] {
        var data: [String: Any] = ["enrolled": enrolled, "user_id": userId]
        if let credentialId { data["credential_id"] = credentialId }
        if let enrolledAt { data["enrolled_at"] = Timestamps.rfc3339WholeSeconds(enrolledAt) }
        return data
    }
}

/// What ``UMFAClient/enroll(userId:)`` returns.
public struct EnrollmentResult: Sendable, Hashable {
    /// The user.
    public let userId: String
    /// The new passkey's credential id, base64url.
    public let credentialId: String
    /// The login token the server issued with the enrollment.
    public let token: String?
    /// When the passkey was enrolled.
    public let enrolledAt: Date
    /// How the passkey is protected on the device: `none`, `pin`, `password`, `biometric`, `devicePasscode`.
    public let userVerification: String
    /// The server's trace id.
    public let traceId: String?
    /// What holds the passkey: `software` (UMFA's software authenticator) or `external` (an
    /// `Authenticator` the app gave: the platform's passkeys, a security key).
    public var authenticator = "software"

    /// The completion-handler form: `user_id`, `credential_id`, `token`, `enrolled_at`,
    /// `authenticator` (`software` or `external`), `user_verification`.
    public var dictionary: [String: Any] {
        var data: [String: Any] = [
            "user_id": userId, "credential_id": credentialId, "authenticator": authenticator,
            "enrolled_at": Timestamps.rfc3339WholeSeconds(enrolledAt), "user_verification": userVerification,
        ]
        if let token { data["token"] = token }
        return data
    }
}

/// What ``UMFAClient/authenticate(userId:)`` returns.
public struct AuthenticationResult: Sendable, Hashable {
    /// The user.
    public let userId: String
    /// The passkey that signed, base64url.
    public let credentialId: String
    /// The login token (RS256 JWT) for the app's backend to validate.
    public let token: String
    /// When the sign-in completed.
    public let authenticatedAt: Date
    /// How the passkey is protected on the device, as at enrollment.
    public let userVerification: String
    /// The server's trace id.
    public let traceId: String?
    /// What holds the passkey: `software` or `external` (see ``EnrollmentResult/authenticator``).
    public var authenticator = "software"

    /// The completion-handler form: `user_id`, `credential_id`, `token`, `authenticated_at`,
    /// `authenticator` (`software` or `external`), `user_verification`.
    public var dictionary: [String: Any] {
        [
            "user_id": userId, "credential_id": credentialId, "token": token, "authenticator": authenticator,
            "authenticated_at": Timestamps.rfc3339WholeSeconds(authenticatedAt),
            "user_verification": userVerification,
        ]
    }
}
