import Crypto
import Foundation
import UMFAEncoding
import UMFAWebAuthn

/// Random secrets and their stored hashes. API keys, enrollment tokens and the admin token
/// are shown once and stored only as SHA-256 hashes; they have 256 bits of entropy, so a
/// plain hash is enough and lookups by hash leak nothing useful.
enum Secrets {
    /// Random bytes from the operating system's generator (``SecureRandom/bytes(_:)``).
    static func randomBytes(_ count: Int) -> [UInt8] {
        SecureRandom.bytes(count)
    }

    /// A new secret with a recognisable prefix, such as `umfa_ak_…` for API keys.
    static func make(prefix: String) -> String {
        prefix + Base64URL.encode(randomBytes(32))
    }

    static func hash(_ secret: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(secret.utf8)))
    }

    /// Keyed derivation with the server secret, for values that must be stable but unguessable.
    static func derive(_ label: String, key: [UInt8], length: Int = 32) -> [UInt8] {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(label.utf8), using: SymmetricKey(data: key))
        return Array(Array(mac).prefix(length))
    }

    /// Masks a secret for logs: its kind and a hash prefix, never the value.
    static func mask(_ secret: String) -> String {
        "…" + Hex.encode(hash(secret).prefix(4))
    }
}
