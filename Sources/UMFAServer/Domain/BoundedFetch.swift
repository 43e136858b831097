import AsyncHTTPClient
import NIOCore
import NIOSSL

/// One https GET the server makes on its own, bounded: one connection attempt, no redirect followed, at most
/// ``largest`` bytes, and the whole of it (connection, head and body) within ``timeout``. The
/// client's own timeouts count only idle time once the head has come, so a server that trickles
/// its body would otherwise hold the request for hours. Used for `sector_identifier_uri`
/// documents and the FIDO metadata BLOB.
struct BoundedFetch: Sendable {
    /// How a fetch failed.
    enum Failure: Error, Sendable {
        /// The server answered another status than 200.
        case status(UInt)
        /// The body is larger than ``BoundedFetch/largest``.
        case tooLarge
        /// No answer within ``BoundedFetch/timeout``.
        case timedOut
        /// The connection or TLS failed; the error as text, for the server log.
        case transport(String)
    }

    /// CAs trusted for the server's TLS certificate.
    var trustRoots: [NIOSSLCertificate] = []
    /// Whether ``trustRoots`` replace the system's CAs rather than join them.
    var onlyTrustRoots = false
    /// How long the fetch may take, connection included.
    var timeout: TimeAmount
    /// The largest body read, in bytes.
    var largest: Int
    /// The request's `Accept` and `User-Agent`.
    var accept: String
    var userAgent: String

    /// The body of a 200 answer to GET `url`, or why not.
    func get(_ url: String) async -> Result<ByteBuffer, Failure> {
        var tls = TLSConfiguration.makeClientConfiguration()
        if onlyTrustRoots {
            tls.trustRoots = .certificates(trustRoots)
        } else if !trustRoots.isEmpty {
            tls.additionalTrustRoots = [.certificates(trustRoots)]
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: timeout, read: timeout), decompression: .disabled)
        // One attempt: a refused connection or certificate fails now, with its reason, rather
        // than being tried again until ``timeout`` ends with none.
        configuration.connectionPool.retryConnectionEstablishment = false
        // No spans of the client's own: it would record the whole URL (docs/operators/tracing.md).
        configuration.tracing.tracer = nil
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let fetched: Result<ByteBuffer, Failure> = await withTaskGroup(of: Result<ByteBuffer, Failure>?.self) {
            group in
            group.addTask { await fetch(url, with: http) }
            group.addTask {
                try? await Task.sleep(for: .nanoseconds(timeout.nanoseconds))
                return nil
            }
            defer { group.cancelAll() }
            return await group.next().flatMap { $0 } ?? .failure(.timedOut)
        }
        try? await http.shutdown()
        return fetched
    }

    private func fetch(_ url: String, with http: HTTPClient) async -> Result<ByteBuffer, Failure> {
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: accept)
            request.headers.add(name: "User-Agent", value: userAgent)
            let response = try await http.execute(request, timeout: timeout)
            guard response.status == .ok else { return .failure(.status(response.status.code)) }
            return .success(try await response.body.collect(upTo: largest))
        } catch is NIOTooManyBytesError {
            return .failure(.tooLarge)
        } catch {
            return .failure(.transport(String(describing: error)))
        }
    }
}
