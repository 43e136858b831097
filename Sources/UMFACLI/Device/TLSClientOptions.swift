import ArgumentParser
import Foundation
import NIOSSL
import UMFA
import UMFATLSTransport

/// `umfa oauth`'s TLS options: a client certificate to present (RFC 8705 §2, for a
/// `tls_client_auth` or `self_signed_tls_client_auth` client) and the server's key pins.
struct TLSClientOptions: ParsableArguments {
    @Option(name: .customLong("cert"), help: "The client certificate (PEM, chain allowed) to present.")
    var certificate: String?
    @Option(name: .customLong("key"), help: "The client certificate's private key (PEM).") var key: String?
    @Option(
        name: .customLong("pin-sha256"),
        help: "A pin of the server's key: base64 SHA-256 of its SubjectPublicKeyInfo (repeat for rotation).")
    var pins: [String] = []
    @Option(name: .customLong("cacert"), help: "Trust these roots (PEM) instead of the system's.")
    var caCertificates: String?
    @Flag(
        name: .customLong("pinned-only"),
        help: "Trust the server by its pinned key alone (a self-signed development server).")
    var pinnedOnly = false

    /// Whether any option asks for the TLS transport.
    var isSet: Bool { certificate != nil || key != nil || !pins.isEmpty || caCertificates != nil || pinnedOnly }

    func validate() throws {
        guard (certificate == nil) == (key == nil) else { throw ValidationError("--cert and --key go together") }
        if pinnedOnly {
            guard !pins.isEmpty else { throw ValidationError("--pinned-only needs at least one --pin-sha256") }
            guard caCertificates == nil else { throw ValidationError("--pinned-only and --cacert exclude each other") }
        }
    }

    /// The TLS transport the options describe, or `nil` for the default (URLSession).
    func transport() throws -> (any HTTPTransport)? {
        guard isSet else { return nil }
        var roots: [NIOSSLCertificate] = []
        if let caCertificates {
            guard let read = try? NIOSSLCertificate.fromPEMFile(caCertificates), !read.isEmpty else {
                throw ValidationError("--cacert \(caCertificates) holds no PEM certificate")
            }
            roots = read
        }
        do throws(TLSTransportError) {
            var configuration = TLSTransportConfiguration(pins: pins)
            if let certificate, let key {
                configuration.clientIdentity = try TLSClientIdentity.pem(certificatePath: certificate, keyPath: key)
            }
            if pinnedOnly {
                configuration.trust = .pinsOnly
            } else if !roots.isEmpty {
                configuration.trust = .certificates(roots)
            }
            return try TLSTransport(configuration)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
