import Foundation
import Logging
import NIOCore
import PostgresNIO

/// A PostgreSQL URL taken apart and checked: where the server is, how the connection is
/// protected, and the session options. Query parameters, named as libpq names them:
/// - `sslmode`: `disable`, `prefer`, `require`, `verify-ca` or `verify-full`, as in libpq.
///   Without it: `disable` for a loopback host (`localhost`, `127.0.0.0/8`, `::1`) or a Unix
///   socket, `prefer` (libpq's default) for any other host. `prefer` and `require` encrypt
///   without checking who answers, unless `sslrootcert` is given (then, as in libpq, the
///   certificate chain is checked as in `verify-ca`); `verify-ca` checks the chain, and
///   `verify-full` the chain and that the certificate names the host (its DNS name, or the IP
///   address connected to, as swift-nio-ssl checks). Any other value stops the start;
/// - `sslrootcert`: a PEM file of the certificate authorities to trust; `system`, or none, is
///   the system's trust store;
/// - `host`: a directory holding the server's Unix socket (`/var/run/postgresql`), as is a
///   URL host starting with `/` (`postgres://umfa@%2Fvar%2Frun%2Fpostgresql/umfa`); no TLS there;
/// - `search_path`: a schema to use;
/// - `connect_timeout`: seconds, default 5 — how long connecting, and a request waiting for
///   a connection while the database is unreachable, may take before failing;
/// - `pool_size`: connections per server instance, 1 to 100; by default
///   ``PostgresStore/defaultPoolSize``. Connections open as statements need them and close
///   after ``idleConnectionLifetime`` idle (``LoopConnectionPool``);
/// - `application_name`: the name UMFA's sessions show in `pg_stat_activity`, `umfa` by
///   default;
/// - `synchronous_commit`: PostgreSQL's setting for UMFA's sessions (`on`, `off`, `local`,
///   `remote_write`, `remote_apply`); the database's own setting when absent. `off` answers
///   before the commit is flushed: a crash of the database or its machine can lose the last
///   few hundred milliseconds of writes, never corrupt the data.
struct PostgresConnectionSettings: Sendable {
    /// libpq's `sslmode` values that UMFA supports.
    enum SSLMode: String, CaseIterable, Sendable {
        case disable
        case prefer
        case require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// Where the server is.
    enum Endpoint: Sendable, Equatable {
        /// A host name or IP address and a port.
        case tcp(host: String, port: Int)
        /// The path of the server's Unix socket file.
        case unixSocket(path: String)
    }

    /// The pool's configuration.
    let pool: PostgresPoolConfiguration
    /// Where the server is.
    let endpoint: Endpoint
    /// The TLS mode, given or defaulted.
    let sslMode: SSLMode
    /// The TLS client settings; `nil` for no TLS (`disable`, or a Unix socket).
    let tls: TLSConfiguration?
    /// How long connecting may take.
    let connectTimeout: Duration

    /// Whether the server's certificate chain is checked against trusted authorities.
    var verifiesCertificate: Bool {
        guard let verification = tls?.certificateVerification else { return false }
        return verification != .none
    }

    /// Whether the server is on this machine: a Unix socket or a loopback host.
    var isLocal: Bool {
        switch endpoint {
        case .unixSocket: return true
        case .tcp(let host, _): return Self.isLoopback(host)
        }
    }

    /// The host and port (or socket) for the log; never the user or password.
    var place: String {
        switch endpoint {
        case .unixSocket(let path): return path
        case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }

    /// What to warn about when the URL itself asks for plaintext to a server beyond this
    /// machine (`sslmode=disable` to a host that is not loopback); `nil` otherwise.
    var plaintextWarning: String? {
        guard sslMode == .disable, !isLocal else { return nil }
        return "PostgreSQL at \(place) is reached without TLS (sslmode=disable): the password and all data cross "
            + "the network in clear; use sslmode=verify-full with sslrootcert=/path/ca.pem"
    }

    /// Whether the start should ask the server if TLS was agreed: `prefer` to a host that is
    /// not loopback, since PostgresNIO falls back to plaintext without saying so.
    var needsTLSProbe: Bool { sslMode == .prefer && !isLocal }

    /// What to log once the store is open, given whether a connection uses TLS (`nil`: unknown
    /// or not asked); `nil` when there is nothing to say.
    func startupNotice(negotiatedTLS: Bool?) -> (level: Logger.Level, message: String)? {
        if let warning = plaintextWarning { return (.warning, warning) }
        guard !isLocal else { return nil }
        switch (sslMode, negotiatedTLS) {
        case (.prefer, false?):
            return (
                .warning,
                "PostgreSQL at \(place) offered no TLS, so sslmode=prefer fell back to plaintext: the password and all "
                    + "data cross the network in clear; enable TLS on the server and use sslmode=verify-full"
            )
        case (.prefer, nil):
            return (
                .warning,
                "PostgreSQL at \(place): sslmode=prefer may have fallen back to plaintext (pg_stat_ssl could not be "
                    + "read); use sslmode=verify-full"
            )
        case (.prefer, true?), (.require, _):
            return verifiesCertificate
                ? nil
                : (
                    .info,
                    "PostgreSQL at \(place) uses TLS (sslmode=\(sslMode.rawValue)) without checking the server's "
                        + "certificate; sslmode=verify-full with sslrootcert also stops impostors"
                )
        default:
            return nil
        }
    }

    /// Parses and checks `text`; a bad parameter throws a ``StoreError`` naming it.
    init(url text: String) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme),
            let user = components.user, !user.isEmpty
        else {
            throw StoreError(.unavailable, "the PostgreSQL URL must look like postgres://user:pass@host:port/database")
        }
        let parameter = { (name: String) in components.queryItems?.first(where: { $0.name == name })?.value }
        let port = components.port ?? 5432
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let directory = parameter("host"), !directory.isEmpty { host = directory }
        if host.hasPrefix("/") {
            endpoint = .unixSocket(path: (host as NSString).appendingPathComponent(".s.PGSQL.\(port)"))
        } else if !host.isEmpty {
            endpoint = .tcp(host: host, port: port)
        } else {
            throw StoreError(.unavailable, "the PostgreSQL URL must look like postgres://user:pass@host:port/database")
        }
        let local = Self.isLoopback(host) || host.hasPrefix("/")

        if let given = parameter("sslmode") {
            guard let mode = SSLMode(rawValue: given) else {
                throw StoreError(
                    .unavailable,
                    "sslmode in the PostgreSQL URL must be one of "
                        + SSLMode.allCases.map(\.rawValue).joined(separator: ", ") + ", not \"\(given)\"")
            }
            sslMode = mode
        } else {
            sslMode = local ? .disable : .prefer
        }
        let roots = try Self.trustedAuthorities(parameter("sslrootcert"))
        tls = host.hasPrefix("/") ? nil : Self.tls(sslMode, roots: roots)

        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var connection: PostgresConnection.Configuration
        switch endpoint {
        case .unixSocket(let path):
            connection = PostgresConnection.Configuration(
                unixSocketPath: path, username: user, password: components.password,
                database: database.isEmpty ? nil : database)
        case .tcp(let host, let port):
            connection = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: components.password,
                database: database.isEmpty ? nil : database, tls: try Self.connectionTLS(sslMode, tls))
        }
        var size = PostgresStore.defaultPoolSize
        if let given = parameter("pool_size") {
            guard let given = Int(given), (1...100).contains(given) else {
                throw StoreError(.unavailable, "pool_size in the PostgreSQL URL must be 1 to 100 connections")
            }
            size = given
        }
        connectTimeout = try Self.connectTimeout(parameter("connect_timeout"))
        connection.options.connectTimeout = TimeAmount(connectTimeout)
        var startup = [("application_name", try Self.applicationName(parameter("application_name")))]
        if let schema = parameter("search_path") { startup.append(("search_path", schema)) }
        if let commit = parameter("synchronous_commit") {
            guard PostgresStore.synchronousCommitValues.contains(commit) else {
                throw StoreError(
                    .unavailable,
                    "synchronous_commit in the PostgreSQL URL must be one of "
                        + PostgresStore.synchronousCommitValues.joined(separator: ", "))
            }
            startup.append(("synchronous_commit", commit))
        }
        connection.options.additionalStartupParameters = startup
        pool = PostgresPoolConfiguration(
            connection: connection, maximumConnections: size, idleLifetime: Self.idleConnectionLifetime)
    }

    /// PostgresNIO's TLS for a connection: none, or `tls` tried (`prefer`) or required.
    private static func connectionTLS(_ mode: SSLMode, _ tls: TLSConfiguration?) throws
        -> PostgresConnection.Configuration.TLS
    {
        guard let tls else { return .disable }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: tls)
        } catch {
            throw StoreError(.unavailable, "the PostgreSQL URL's TLS settings cannot be used: \(error)")
        }
        return mode == .prefer ? .prefer(context) : .require(context)
    }

    /// The name UMFA's sessions show in `pg_stat_activity` when the URL gives none.
    static let defaultApplicationName = "umfa"

    /// The `application_name` query parameter: 1 to 63 printable ASCII characters (PostgreSQL
    /// keeps 63 bytes and turns anything else into `?`), ``defaultApplicationName`` when absent.
    static func applicationName(_ text: String?) throws -> String {
        guard let text else { return defaultApplicationName }
        guard (1...63).contains(text.utf8.count), text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw StoreError(
                .unavailable, "application_name in the PostgreSQL URL must be 1 to 63 printable ASCII characters")
        }
        return text
    }

    /// How long a connection may sit unused in its pool before the pool closes it: long enough
    /// to carry a ceremony's two requests and steady traffic, short enough that a quiet server
    /// holds few sessions, and well under the idle limits of NATs and firewalls (no keep-alive
    /// query runs).
    static let idleConnectionLifetime: Duration = .seconds(10)

    /// The TLS settings for `mode` (`nil` for `disable`); `roots` (when given) replace the
    /// system's trust store and make even `prefer` and `require` check the chain, as libpq does
    /// with a root certificate file.
    private static func tls(_ mode: SSLMode, roots: [NIOSSLCertificate]?) -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let roots { configuration.trustRoots = .certificates(roots) }
        switch mode {
        case .disable: return nil
        case .prefer, .require, .verifyCA:
            let checksChain = mode == .verifyCA || roots != nil
            configuration.certificateVerification = checksChain ? .noHostnameVerification : .none
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
        }
        return configuration
    }

    /// The certificates of the `sslrootcert` file; `nil` for none or `system`.
    private static func trustedAuthorities(_ path: String?) throws -> [NIOSSLCertificate]? {
        guard let path, !path.isEmpty, path != "system" else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError(.unavailable, "sslrootcert in the PostgreSQL URL names \(path), which cannot be read")
        }
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(path), !certificates.isEmpty else {
            throw StoreError(
                .unavailable, "sslrootcert in the PostgreSQL URL names \(path), which holds no PEM certificate")
        }
        return certificates
    }

    /// The `connect_timeout` query parameter, 5 seconds when absent.
    static func connectTimeout(_ value: String?) throws -> Duration {
        guard let value else { return .seconds(5) }
        guard let seconds = Double(value), seconds > 0, seconds <= 3600 else {
            throw StoreError(.unavailable, "connect_timeout in the PostgreSQL URL must be a number of seconds")
        }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// Whether `host` names this machine: `localhost`, an address in 127.0.0.0/8, or `::1`
    /// (also as an IPv4-mapped address).
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "localhost." || name.hasSuffix(".localhost") { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { [UInt8]($0) }
        if bytes[..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
    }
}

/// What a connection pool needs: how to open a connection, how many may be open at once, and
/// how long one may sit unused.
struct PostgresPoolConfiguration: Sendable {
    /// How each connection is opened.
    var connection: PostgresConnection.Configuration
    /// Connections per server instance, shared between the event loops' pools (``LoopPools``).
    var maximumConnections: Int
    /// How long a connection may sit unused before its pool closes it.
    var idleLifetime: Duration
}
