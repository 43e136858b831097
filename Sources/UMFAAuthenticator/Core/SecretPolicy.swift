/// The shortest PIN and password the software authenticator accepts for a new passkey or a
/// change of secret.
///
/// A PIN is at least ``minimumPINLength`` digits, ASCII `0`–`9` only; a password is at least
/// ``minimumPasswordLength`` characters (user-perceived characters, so `é` counts once), any
/// characters. Secrets set before these rules existed still open their passkeys: the rules
/// apply only to a new secret.
public enum SecretPolicy {
    /// The fewest digits in a PIN: 4 (10,000 possible PINs).
    public static let minimumPINLength = 4
    /// The fewest characters in a password: 8.
    public static let minimumPasswordLength = 8

    /// Checks a new PIN or password.
    /// - Throws: ``AuthenticatorError`` `weakSecret` naming the rule it breaks (never the secret).
    public static func check(_ kind: SecretKind, _ secret: String) throws(AuthenticatorError) {
        switch kind {
        case .pin:
            let digitsOnly = secret.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard digitsOnly, secret.utf8.count >= minimumPINLength else {
                throw AuthenticatorError(
                    .weakSecret, "a PIN must be at least \(minimumPINLength) digits (0-9), and digits only")
            }
        case .password:
            guard secret.count >= minimumPasswordLength else {
                throw AuthenticatorError(
                    .weakSecret, "a password must be at least \(minimumPasswordLength) characters")
            }
        }
    }
}
