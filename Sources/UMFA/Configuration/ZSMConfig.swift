import Foundation
import UMFAAuthenticator

/// How the SDK reaches the UMFA server and protects the device's passkeys.
///
/// ```swift
/// var config = ZSMConfig(hostURL: URL(string: "https://mfa.example.com")!, applicationId: "1b0c…")
/// config.userVerification = .pin { purpose in await askUserForPIN(purpose) }
/// config.enrollmentTokenProvider = { userId in try await myBackend.enrollmentToken(for: userId) }
/// let client = UMFAClient(config)
/// ```
public struct ZSMConfig: Sendable {
    /// How the user is verified on this device.
    public enum UserVerificationChoice: Sendable {
        /// Presence only: the passkey is sealed with the device key and UV is never claimed.
        case none
        /// A PIN the user chooses at enrollment and enters at each use.
        case pin(SecretProvider)
        /// A password the user chooses at enrollment and enters at each use.
        case password(SecretProvider)
        /// The platform's biometric or device passcode check.
        case platform(any PlatformUserVerifier)
        /// The platform's biometric check, which can bind a new passkey to the biometrics
        /// enrolled now: with `invalidateOnNewOsBiometrics` a passkey created under it stops
        /// working (``ZSMError/Code/keyDisappearedPermanently``) once the verifier reports
        /// another biometric set. When biometrics are unavailable or do not verify the user,
        /// `devicePasscodeFallback` (if given) verifies instead, and a passkey created that way
        /// is protected by the device passcode. Both matter at enrollment and are kept with the
        /// passkey: its later sign-ins fall back to `devicePasscodeFallback` only if the passkey
        /// was created with one. `invalidateOnNewOsBiometrics` is `true` unless given, as the
        /// Nevis registration builder has it (docs/sdk-products.md).
        case biometric(
            any BiometricUserVerifier, devicePasscodeFallback: (any DevicePasscodeUserVerifier)? = nil,
            invalidateOnNewOsBiometrics: Bool = true)
    }

    /// Why the SDK asks for the PIN or password.
    public enum SecretPurpose: Sendable, Hashable {
        /// Choose a new one, to protect a new passkey.
        case create(userId: String)
        /// Enter it, to use the passkey.
        case enter(userId: String)
    }

    /// Asks the user for a PIN or password; `nil` means the user cancelled.
    public typealias SecretProvider = @Sendable (SecretPurpose) async -> String?

    /// The UMFA server, such as `https://mfa.example.com` (`host_url`).
    public var hostURL: URL
    /// The application id (`application_id`).
    public var applicationId: String
    /// The environment name (`application_environment`), sent as a header.
    public var applicationEnvironment: String
    /// The app's own identifier for this installation or customer (`consumer_id`), sent as a header.
    public var consumerId: String?
    /// The WebAuthn origin this app speaks for; the host's origin by default. Native apps use
    /// `ios:bundle-id:<bundle id>` or `android:apk-key-hash:<hash>` registered with the application.
    public var origin: String?
    /// Where the device keeps its passkeys; an `umfa` folder in Application Support by default.
    public var storageLocation: URL
    /// Where the device key that seals the passkeys lives; `nil` (the default) keeps it in the
    /// file `device.key` in ``storageLocation`` (`DeviceKeyFile`). A provider backed by the
    /// platform keystore (Secure Enclave, Android Keystore) that cannot export its key stops
    /// a copy of ``storageLocation`` from being used to guess PINs anywhere else.
    public var deviceKeyProvider: (any DeviceKeyProvider)?
    /// scrypt N for new PIN and password seals. Not public: apps always get
    /// ``SoftwareAuthenticator/defaultScryptRounds``; only the SDK's tests lower it, for speed.
    var scryptRounds = SoftwareAuthenticator.defaultScryptRounds
    /// The time limit of one HTTP request, in seconds.
    public var timeout: TimeInterval
    /// How often a failed connection is retried (only requests that are safe to repeat).
    public var retryCount: Int
    /// Extra HTTP headers for every request.
    public var headers: [String: String]
    /// How requests reach the server: ``URLSessionTransport`` by default; a transport that
    /// presents a client certificate or pins the server's key (`UMFATLSTransport`) otherwise.
    public var transport: any HTTPTransport = URLSessionTransport()
    /// How the user is verified.
    public var userVerification: UserVerificationChoice
    /// Supplies an enrollment token from the app's backend, for applications with the `grant` policy.
    public var enrollmentTokenProvider: (@Sendable (String) async throws -> String?)?
    /// A name for this device, shown in credential lists.
    public var deviceName: String?
    /// The push-service token (APNs, FCM) of this device, sent with an out-of-band enrollment's
    /// device key so a dispatcher can reach the device (docs/contract.md §7).
    public var pushToken: String?

    /// Creates a configuration with safe defaults.
    public init(hostURL: URL, applicationId: String, applicationEnvironment: String = "production") {
        self.hostURL = hostURL
        self.applicationId = applicationId
        self.applicationEnvironment = applicationEnvironment
        self.consumerId = nil
        self.origin = nil
        let support =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
        self.storageLocation = support.appendingPathComponent("umfa", isDirectory: true)
        self.deviceKeyProvider = nil
        self.timeout = 30
        self.retryCount = 2
        self.headers = [:]
        self.userVerification = .none
        self.enrollmentTokenProvider = nil
        self.deviceName = nil
        self.pushToken = nil
    }

    /// Creates a configuration from the keys the UMFA documentation uses: `host_url`,
    /// `application_id`, and optionally `application_environment`, `consumer_id`, `origin`,
    /// `storage_location`, `timeout`, `retry_count`, `headers`. (The SDK logs through
    /// ``OAuthConfiguration/logger``, a swift-log `Logger` whose level the app sets.)
    public init(json: [String: Any]) throws(ZSMError) {
        guard let host = json["host_url"] as? String, let url = URL(string: host), url.host != nil else {
            throw ZSMError(.invalidConfiguration, "host_url must be a URL such as https://mfa.example.com")
        }
        guard let applicationId = json["application_id"] as? String else {
            throw ZSMError(.invalidConfiguration, "application_id is required")
        }
        self.init(
            hostURL: url, applicationId: applicationId,
            applicationEnvironment: json["application_environment"] as? String ?? "production")
        consumerId = json["consumer_id"] as? String
        origin = json["origin"] as? String
        if let path = json["storage_location"] as? String { storageLocation = URL(fileURLWithPath: path) }
        if let timeout = Self.number(json["timeout"]) { self.timeout = timeout }
        if let retries = Self.number(json["retry_count"]) {
            guard let whole = Int(exactly: retries) else {
                throw ZSMError(.invalidConfiguration, "retry_count must be a whole number")
            }
            retryCount = whole
        }
        if let headers = json["headers"] as? [String: String] { self.headers = headers }
    }

    /// A JSON number as a `Double`, whichever Swift type holds it (`Int` from a literal,
    /// `Double` or `NSNumber` from `JSONSerialization`).
    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let value as Int: return Double(value)
        case let value as Double: return value
        case let value as NSNumber: return value.doubleValue
        default: return nil
        }
    }

    /// The origin in use: ``origin`` or the host's origin.
    public var effectiveOrigin: String {
        if let origin { return origin }
        var text = "\(hostURL.scheme ?? "https")://\(hostURL.host ?? "")"
        if let port = hostURL.port { text += ":\(port)" }
        return text
    }

    /// Checks what can be checked before any request.
    func validate() throws(ZSMError) {
        guard let scheme = hostURL.scheme, scheme == "https" || scheme == "http", hostURL.host != nil else {
            throw ZSMError(.invalidConfiguration, "host_url must be an http(s) URL")
        }
        guard UUID(uuidString: applicationId) != nil else {
            throw ZSMError(.invalidConfiguration, "application_id must be the application's UUID")
        }
        guard timeout > 0, retryCount >= 0 else {
            throw ZSMError(.invalidConfiguration, "timeout must be positive and retry_count not negative")
        }
    }
}
