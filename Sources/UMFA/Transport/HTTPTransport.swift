import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the SDK sends one HTTP request: the seam between the SDK's protocol logic (ceremonies,
/// OAuth, DPoP) and the network.
///
/// ``URLSessionTransport`` is the default. An app that must present a client certificate
/// (RFC 8705 §2) or pin the server's public key sets another one on ``ZSMConfig/transport`` and
/// ``OAuthConfiguration/transport``: the `UMFATLSTransport` library's `TLSTransport` does both
/// on Linux and Apple platforms. (On Linux, FoundationNetworking's `URLSession` has neither:
/// `URLProtectionSpace.serverTrust` is unavailable and `URLCredential` takes no identity.)
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole body with the response, whatever its status; throws
    /// only when no response was had (unreachable host, TLS refused, time limit).
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)

    /// Whether this transport presents a client certificate when asked (RFC 8705 §2): then the
    /// OAuth requests go to the issuer's `mtls_endpoint_aliases` (§5). `false` by default.
    var presentsClientCertificate: Bool { get }
}

extension HTTPTransport {
    /// `false`: a transport presents no client certificate unless it says so.
    public var presentsClientCertificate: Bool { false }
}

/// The default transport: a `URLSession`, `.shared` unless given.
///
/// On Apple platforms a session whose delegate answers the client-certificate and server-trust
/// challenges presents a keychain identity and pins the server key (docs/sdk-tls.md).
public struct URLSessionTransport: HTTPTransport {
    /// The session the requests go through.
    public let session: URLSession

    /// A transport over `session`.
    public init(session: URLSession = .shared) {
        self.session = session
    }

    /// Sends `request` with `URLSession.data(for:)`.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }
}

/// A transport's failure that the SDK reports as it is, not as a mere "cannot reach": a server
/// key that matches no pin, a certificate chain that is not trusted. ``zsmError`` is what the app
/// gets; one whose recovery is not `retry` is final (never retried).
public protocol HTTPTransportFailure: Error, Sendable {
    /// The error the SDK throws for this failure.
    var zsmError: ZSMError { get }
}
