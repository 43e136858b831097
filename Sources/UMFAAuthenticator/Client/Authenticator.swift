import UMFAWebAuthnTypes

/// A WebAuthn authenticator as an app reaches it through its platform's client API, at the
/// level of W3C `PublicKeyCredential` JSON: `navigator.credentials.create()` and `get()`
/// (WebAuthn L3 §5.1.3, §5.1.4) with the options JSON in and the response JSON out
/// (`RegistrationResponseJSON`, `AuthenticationResponseJSON`, §5.1, with
/// `clientExtensionResults`).
///
/// ``WebAuthnClient`` over the ``SoftwareAuthenticator`` conforms; so can the platform's
/// passkeys (iOS `ASAuthorizationPlatformPublicKeyCredentialProvider`, Android Credential
/// Manager) or a security key, through an adapter the app writes (docs/sdk.md has both recipes).
/// An implementation reports failures as a ``PublicKeyCredentialError``, whose codes are the
/// `DOMException` names a browser would throw.
public protocol Authenticator: Sendable {
    /// `navigator.credentials.create()`: makes a new credential for `options`.
    ///
    /// - Parameter context: the user's verification the app already collected (for an
    ///   authenticator that checks a PIN itself) and the consent hooks; a platform
    ///   authenticator that asks the user in its own sheet may ignore both.
    /// - Throws: ``PublicKeyCredentialError`` `notAllowed` when the user declined or cancelled,
    ///   `invalidState` when an excluded credential is on this authenticator, `notSupported`
    ///   when no requested algorithm is supported, `security` for an RP ID the caller may not use.
    func create(_ options: CreationOptionsJSON, context: AuthenticatorContext) async throws(PublicKeyCredentialError)
        -> RegistrationResponseJSON

    /// `navigator.credentials.get()`: signs the challenge of `options` with a matching credential.
    ///
    /// - Throws: ``PublicKeyCredentialError`` `notAllowed` when no credential matches or the user
    ///   declined, `security` for an RP ID the caller may not use.
    func get(_ options: RequestOptionsJSON, context: AuthenticatorContext) async throws(PublicKeyCredentialError)
        -> AuthenticationResponseJSON
}

/// What an ``Authenticator`` is told besides the options.
public struct AuthenticatorContext: Sendable {
    /// How the app verified the user for this operation: a PIN or password the software
    /// authenticator checks (and seals a new key with), or a platform check already done.
    public var userVerification: UserVerification
    /// The user's decisions before a credential is created or an excluded one reported.
    public var consent: any AuthenticatorConsent
    /// The name the new credential will be known by (the device name sent with it); `nil`
    /// lets the authenticator use the user's name.
    public var keyName: String?

    /// Creates a context.
    public init(
        userVerification: UserVerification = .none, consent: any AuthenticatorConsent = AlwaysConsent(),
        keyName: String? = nil
    ) {
        self.userVerification = userVerification
        self.consent = consent
        self.keyName = keyName
    }
}

/// Why an ``Authenticator`` refused: the `DOMException` a browser's `create()` or `get()`
/// would reject with (WebAuthn L3 §5.1.3, §5.1.4.1), and a message.
///
/// Errors compare by ``code`` only. The software authenticator also says its own reason in
/// ``authenticatorError`` (a wrong PIN, a lockout), which a browser would report as
/// `NotAllowedError`.
public struct PublicKeyCredentialError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `DOMException` names WebAuthn uses.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// `NotAllowedError`: the user declined or cancelled, no credential matched, or the
        /// operation timed out.
        case notAllowed = "NotAllowedError"
        /// `InvalidStateError`: a credential in `excludeCredentials` is on this authenticator.
        case invalidState = "InvalidStateError"
        /// `NotSupportedError`: no requested algorithm or option is supported.
        case notSupported = "NotSupportedError"
        /// `SecurityError`: the RP ID is not valid for the caller's origin (or app).
        case security = "SecurityError"
        /// `AbortError`: the app aborted the operation.
        case abort = "AbortError"
        /// Anything else (`UnknownError`), with the platform's message.
        case unknown = "UnknownError"
    }

    /// The kind of refusal.
    public let code: Code
    /// A human explanation; it never contains key material or a secret.
    public let message: String
    /// The software authenticator's own reason, when it was the one refusing.
    public let authenticatorError: AuthenticatorError?

    /// Creates an error.
    public init(_ code: Code, _ message: String, authenticatorError: AuthenticatorError? = nil) {
        self.code = code
        self.message = message
        self.authenticatorError = authenticatorError
    }

    /// `NotAllowedError` with `message`.
    public static func notAllowed(_ message: String) -> PublicKeyCredentialError {
        PublicKeyCredentialError(.notAllowed, message)
    }
    /// `InvalidStateError` with `message`.
    public static func invalidState(_ message: String) -> PublicKeyCredentialError {
        PublicKeyCredentialError(.invalidState, message)
    }
    /// `NotSupportedError` with `message`.
    public static func notSupported(_ message: String) -> PublicKeyCredentialError {
        PublicKeyCredentialError(.notSupported, message)
    }
    /// `SecurityError` with `message`.
    public static func security(_ message: String) -> PublicKeyCredentialError {
        PublicKeyCredentialError(.security, message)
    }
    /// `AbortError` with `message`.
    public static func abort(_ message: String) -> PublicKeyCredentialError {
        PublicKeyCredentialError(.abort, message)
    }
    /// `UnknownError` with `message`.
    public static func unknown(_ message: String) -> PublicKeyCredentialError {
        PublicKeyCredentialError(.unknown, message)
    }

    /// The `DOMException` name and the explanation.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Compares by code only.
    public static func == (lhs: PublicKeyCredentialError, rhs: PublicKeyCredentialError) -> Bool {
        lhs.code == rhs.code
    }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension PublicKeyCredentialError {
    /// The `DOMException` a browser reports for the software authenticator's `error`.
    public init(_ error: AuthenticatorError) {
        let code: Code
        switch error.code {
        case .invalidState: code = .invalidState
        case .notSupported: code = .notSupported
        case .notAllowed, .userVerificationFailed, .lockedOut, .weakSecret: code = .notAllowed
        case .invalidData, .storageFailure: code = .unknown
        }
        self.init(code, error.message, authenticatorError: error)
    }
}
