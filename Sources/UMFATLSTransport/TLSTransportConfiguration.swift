import Foundation
import NIOSSL
import UMFA

/// What a ``TLSTransport`` presents and what it accepts from the server.
public struct TLSTransportConfiguration: Sendable {
    /// Which server certificates are trusted.
    public enum ServerTrust: Sendable {
        /// The chain must lead to one of the system's roots (`/etc/ssl/certs` on Linux) and name
        /// the host (RFC 5280 §6, RFC 6125); then at least one pin must match a key of the chain.
        /// Apple platforms have no root file for this check: use ``certificates(_:)`` there, or
        /// ``URLSessionTransport`` with a delegate (docs/sdk-tls.md).
        case system
        /// As ``system``, with these roots instead (a deployment's own CA).
        case certificates([NIOSSLCertificate])
        /// No chain or name check: the server's own (leaf) key must match a pin. For a
        /// development server with a self-signed certificate; needs at least one pin.
        case pinsOnly
    }

    /// The client certificate to present, if any (RFC 8705 §2).
    public var clientIdentity: (any ClientIdentityProvider)?
    /// Which server certificates are trusted.
    public var trust: ServerTrust
    /// The pins: base64 SHA-256 of a SubjectPublicKeyInfo (HPKP's `pin-sha256`, RFC 7469 §2.4),
    /// with or without a `sha256/` prefix. Several for rotation (the key in use and the next
    /// one); none means the chain check alone.
    public var pins: [String]
    /// The time limit of one request (connection, handshake, request and answer), in seconds.
    public var timeout: TimeInterval

    /// A configuration; the defaults trust the system roots and pin nothing.
    public init(
        clientIdentity: (any ClientIdentityProvider)? = nil, trust: ServerTrust = .system, pins: [String] = [],
        timeout: TimeInterval = 30
    ) {
        self.clientIdentity = clientIdentity
        self.trust = trust
        self.pins = pins
        self.timeout = timeout
    }
}

/// Why a ``TLSTransport`` request failed. Errors that judge the server (``pinMismatch(host:)``,
/// ``untrustedCertificate(host:reason:)``) are final: the SDK never retries them.
public enum TLSTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No key of the server's certificate chain matches a configured pin: the connection was
    /// closed in the handshake, before any byte of the request left.
    case pinMismatch(host: String)
    /// The server's certificate chain is not trusted (no path to a root, expired, another name).
    case untrustedCertificate(host: String, reason: String)
    /// A pin is not a base64 SHA-256 digest, or ``TLSTransportConfiguration/ServerTrust/pinsOnly``
    /// has no pin.
    case invalidPin(String)
    /// The client identity could not be read.
    case invalidIdentity(String)
    /// ``TLSTransportConfiguration/ServerTrust/certificates(_:)`` holds no usable root.
    case invalidRoots(String)
    /// The URL is not `https://host[:port]/…`: this transport never sends a request in clear.
    case unsupportedURL(String)
    /// The server could not be reached, the handshake failed for another reason, or the answer
    /// was cut short or too long.
    case connectionFailed(host: String, reason: String)
    /// No whole answer within the time limit.
    case timedOut(host: String)

    /// A sentence for logs and users; it never holds a key or a token.
    public var description: String {
        switch self {
        case .pinMismatch(let host):
            return "the public key of \(host) matches none of the pinned keys (pin-sha256); the connection was refused"
        case .untrustedCertificate(let host, let reason):
            return "the certificate of \(host) is not trusted: \(reason)"
        case .invalidPin(let reason): return "invalid pin: \(reason)"
        case .invalidIdentity(let reason): return "invalid client identity: \(reason)"
        case .invalidRoots(let reason): return "invalid trusted roots: \(reason)"
        case .unsupportedURL(let url): return "only https URLs can be sent over TLS: \(url)"
        case .connectionFailed(let host, let reason): return "cannot reach \(host): \(reason)"
        case .timedOut(let host): return "\(host) did not answer in time"
        }
    }
}

extension TLSTransportError: HTTPTransportFailure {
    /// The SDK's error: a refused server is `networkError` with `giveUp` (retrying cannot help),
    /// a bad configuration `invalidConfiguration`, a lost connection `networkError` with `retry`.
    public var zsmError: ZSMError {
        switch self {
        case .pinMismatch, .untrustedCertificate:
            return ZSMError(.networkError, description, recovery: .giveUp)
        case .invalidPin, .invalidIdentity, .invalidRoots, .unsupportedURL:
            return ZSMError(.invalidConfiguration, description)
        case .connectionFailed, .timedOut:
            return ZSMError(.networkError, description, recovery: .retry)
        }
    }
}
