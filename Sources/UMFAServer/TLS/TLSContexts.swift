import Foundation
import Logging
import NIOSSL
import Synchronization

/// The server's current TLS contexts, one for the main listener and one for the mutual-TLS
/// alias, built from the certificate and key files. Each new connection takes the context
/// current at its accept; ``reload(logger:reason:)`` swaps both at once, so connections already
/// open keep theirs and none is dropped. Files that do not load keep the old contexts.
final class TLSContexts: Sendable {
    /// What one load of the files produced.
    struct Loaded: Sendable {
        /// The main listener's context: no client certificate asked for.
        let server: NIOSSLContext
        /// The alias listener's context: a client certificate asked for, not required.
        let mutualTLS: NIOSSLContext
        /// The leaf certificate's serial number in hex, for the log.
        let serial: String
    }

    /// TLS 1.2 suites with forward secrecy and an AEAD cipher only; TLS 1.3's suites are all
    /// AEAD with (EC)DHE and fixed by BoringSSL.
    static let cipherSuites = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
        "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// HTTP/2 first, then HTTP/1.1 (RFC 7301 ALPN identifiers).
    static let applicationProtocols = ["h2", "http/1.1"]

    let serving: TLSServing
    private let state: Mutex<(loaded: Loaded, seen: FileStamp?)>

    /// Loads the files; a file that cannot be read or parsed, or a key that is not the
    /// certificate's, stops the start with a ``ConfigurationError`` naming the file.
    init(serving: TLSServing) throws {
        self.serving = serving
        let stamp = FileStamp(serving)
        state = Mutex((try Self.load(serving), stamp))
    }

    /// The context a new main-listener connection uses.
    var server: NIOSSLContext { state.withLock { $0.loaded.server } }
    /// The context a new alias-listener connection uses.
    var mutualTLS: NIOSSLContext { state.withLock { $0.loaded.mutualTLS } }
    /// The serial number (hex) of the certificate in use.
    var serial: String { state.withLock { $0.loaded.serial } }

    /// Loads the files again and, when they load, makes them the current contexts; else logs
    /// why (never a key's bytes) and keeps the old ones. Returns whether the contexts changed.
    @discardableResult
    func reload(logger: Logger, reason: String) -> Bool {
        let stamp = FileStamp(serving)
        do {
            let loaded = try Self.load(serving)
            state.withLock { $0 = (loaded, stamp) }
            logger.info(
                "TLS certificate reloaded",
                metadata: ["reason": .string(reason), "serial": .string(loaded.serial)])
            return true
        } catch {
            state.withLock { $0.seen = stamp }
            logger.error(
                "TLS certificate not reloaded; the previous one stays in use",
                metadata: ["reason": .string(reason), "error": .string("\(error)")])
            return false
        }
    }

    /// Reloads when either file's modification time, size or inode differs from the last look.
    func reloadIfChanged(logger: Logger) {
        let stamp = FileStamp(serving)
        guard state.withLock({ $0.seen != stamp }) else { return }
        reload(logger: logger, reason: "file changed")
    }

    /// Reads both files and builds the two contexts.
    static func load(_ serving: TLSServing) throws -> Loaded {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(serving.certificatePath)
        } catch {
            throw ConfigurationError(
                "UMFA_TLS_CERTIFICATE: \(serving.certificatePath) holds no readable PEM certificate")
        }
        guard let leaf = chain.first else {
            throw ConfigurationError("UMFA_TLS_CERTIFICATE: \(serving.certificatePath) holds no certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: serving.keyPath, format: .pem)
        } catch {
            // The key's bytes are never part of the message.
            throw ConfigurationError("UMFA_TLS_KEY: \(serving.keyPath) holds no readable PEM private key")
        }
        let server: NIOSSLContext
        let mutualTLS: NIOSSLContext
        do {
            server = try NIOSSLContext(configuration: configuration(chain: chain, key: key, clientCertificate: false))
            mutualTLS = try NIOSSLContext(configuration: configuration(chain: chain, key: key, clientCertificate: true))
        } catch {
            throw ConfigurationError(
                "UMFA_TLS_KEY: \(serving.keyPath) is not the private key of the certificate in \(serving.certificatePath)"
            )
        }
        return Loaded(
            server: server, mutualTLS: mutualTLS,
            serial: leaf.serialNumber.map { String(format: "%02x", $0) }.joined())
    }

    /// TLS 1.2 or 1.3, ECDHE with AEAD ciphers, ALPN `h2` then `http/1.1`. The alias asks for a
    /// client certificate without requiring one and without judging it here: the OAuth layer
    /// judges it (RFC 8705 §2.1, §2.2 — self-signed certificates are valid there).
    static func configuration(chain: [NIOSSLCertificate], key: NIOSSLPrivateKey, clientCertificate: Bool)
        -> TLSConfiguration
    {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuites = cipherSuites
        configuration.applicationProtocols = applicationProtocols
        // How long a closing connection waits for the peer's close_notify: a client that never
        // answers one (most keep-alive clients) must not hold up a graceful shutdown.
        configuration.shutdownTimeout = .milliseconds(500)
        if clientCertificate {
            configuration.certificateVerification = .optionalVerification
            // No CA list: any certificate may be offered (RFC 8705 §2.2 self-signed ones too).
            configuration.trustRoots = .certificates([])
        }
        return configuration
    }
}

/// What the change poll compares: each file's modification time, size and inode.
struct FileStamp: Equatable, Sendable {
    let certificate: [String]
    let key: [String]

    init(_ serving: TLSServing) {
        certificate = Self.look(serving.certificatePath)
        key = Self.look(serving.keyPath)
    }

    private static func look(_ path: String) -> [String] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return [] }
        return [
            (attributes[.modificationDate] as? Date).map { "\($0.timeIntervalSince1970)" } ?? "",
            "\(attributes[.size] ?? "")", "\(attributes[.systemFileNumber] ?? "")",
        ]
    }
}
