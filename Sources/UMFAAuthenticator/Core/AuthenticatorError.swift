/// Why the software authenticator or the client emulation refused an operation.
///
/// The codes follow the `DOMException` names a browser reports, so an app can treat a
/// software authenticator and a platform one alike. Errors compare by ``code`` only.
public struct AuthenticatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of refusal.
    public enum Code: String, Sendable, Hashable {
        /// The operation is not allowed: no matching credential, consent refused, RP ID not
        /// valid for the origin (`NotAllowedError`).
        case notAllowed
        /// A credential in `excludeCredentials` already lives on this authenticator (`InvalidStateError`).
        case invalidState
        /// None of the requested algorithms is supported (`NotSupportedError`).
        case notSupported
        /// The user did not complete verification, or gave a wrong PIN or password.
        case userVerificationFailed
        /// Too many wrong PINs or passwords in a row for this passkey; it stays locked until
        /// it is enrolled again.
        case lockedOut
        /// A new PIN or password breaks ``SecretPolicy`` (too short, or a PIN with other than
        /// digits); nothing was created or changed.
        case weakSecret
        /// The options or stored data could not be read (`DataError`/`SyntaxError`).
        case invalidData
        /// The credential store failed.
        case storageFailure
    }

    /// The kind of refusal.
    public let code: Code
    /// A human explanation; it never contains key material.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the explanation.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Compares by code only.
    public static func == (lhs: AuthenticatorError, rhs: AuthenticatorError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
