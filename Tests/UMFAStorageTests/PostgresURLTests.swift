import Foundation
import PostgresNIO
import Testing

@testable import UMFAStorage

@Suite("Storage: PostgreSQL URL parameters")
struct PostgresURLTests {
    private let base = "postgres://umfa:secret@db.internal:5432/umfa"

    private func startup(_ url: String) throws -> [String: String] {
        Dictionary(
            try PostgresStore.configuration(url).connection.options.additionalStartupParameters,
            uniquingKeysWith: { $1 })
    }

    @Test("pool_size is shared between the event loops' pools, one per loop at most one per connection")
    func poolShares() throws {
        for url in [base, base + "?pool_size=5", base + "?pool_size=1"] {
            let configuration = try PostgresStore.configuration(url)
            #expect(configuration.idleLifetime == PostgresConnectionSettings.idleConnectionLifetime)
            for loops in [1, 2, 4] {
                let shares = LoopPools.shares(of: configuration.maximumConnections, loops: loops)
                #expect(shares.reduce(0, +) == configuration.maximumConnections)
                #expect(shares.count == min(loops, configuration.maximumConnections))
                #expect(shares.allSatisfy { $0 >= 1 })
                #expect(shares.max()! - shares.min()! <= 1)
            }
        }
    }

    @Test("pool_size sets the connections per instance; twice the cores plus one without it")
    func poolSize() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(try PostgresStore.configuration(base).maximumConnections == min(100, cores * 2 + 1))
        #expect(try PostgresStore.configuration(base + "?pool_size=4").maximumConnections == 4)
    }

    @Test(
        "an out-of-range or unknown value is refused with a message naming the parameter",
        arguments: [
            ("?pool_size=0", "pool_size"), ("?pool_size=101", "pool_size"), ("?pool_size=many", "pool_size"),
            ("?synchronous_commit=maybe", "synchronous_commit"), ("?synchronous_commit=", "synchronous_commit"),
            ("?application_name=", "application_name"), ("?application_name=caf%C3%A9", "application_name"),
            ("?application_name=tab%09name", "application_name"),
            ("?application_name=" + String(repeating: "u", count: 64), "application_name"),
        ])
    func refused(query: String, parameter: String) {
        let error = #expect(throws: StoreError.self) { try PostgresStore.configuration(base + query) }
        #expect(error?.message.contains(parameter) == true, "\(String(describing: error))")
    }

    @Test("synchronous_commit, search_path and application_name become startup parameters of every connection")
    func startupParameters() throws {
        #expect(try startup(base) == ["application_name": "umfa"])
        let all = try startup(base + "?search_path=tenant_a&synchronous_commit=off&application_name=umfa-eu-1")
        #expect(all == ["search_path": "tenant_a", "synchronous_commit": "off", "application_name": "umfa-eu-1"])
        for value in PostgresStore.synchronousCommitValues {
            #expect(try startup(base + "?synchronous_commit=\(value)")["synchronous_commit"] == value)
        }
    }

    @Test("a store opened with synchronous_commit=off runs its sessions with it")
    func sessionSetting() async throws {
        let location = try await StoreLocation.make(.postgres)
        let executor = PostgresExecutor(
            configuration: try PostgresStore.configuration(
                TestDatabase.url(location.address, adding: "synchronous_commit", "off")),
            leaseTimeout: .seconds(30), logger: TestDatabase.logger)
        executor.startStandalone()
        let rows = try await executor.rows(StoreQuery("SELECT current_setting('synchronous_commit') AS setting"))
        try await executor.close()
        #expect(rows.first?.optionalText("setting") == "off")
    }

    private func settings(_ url: String) throws -> PostgresConnectionSettings {
        try PostgresConnectionSettings(url: url)
    }

    @Test(
        "sslmode takes libpq's five values, each with its own certificate check",
        arguments: [
            ("disable", nil), ("prefer", CertificateVerification.none), ("require", CertificateVerification.none),
            ("verify-ca", .noHostnameVerification), ("verify-full", .fullVerification),
        ] as [(String, CertificateVerification?)])
    func sslModes(mode: String, verification: CertificateVerification?) throws {
        let parsed = try settings(base + "?sslmode=\(mode)")
        #expect(parsed.sslMode.rawValue == mode)
        #expect(parsed.tls?.certificateVerification == verification)
        #expect(parsed.verifiesCertificate == (mode == "verify-ca" || mode == "verify-full"))
    }

    @Test("an unknown sslmode is refused naming sslmode and the values it takes, never taken for require")
    func unknownSSLMode() {
        for mode in ["verify_full", "REQUIRE", "allow", ""] {
            let error = #expect(throws: StoreError.self) { try PostgresStore.configuration(base + "?sslmode=\(mode)") }
            #expect(error?.message.contains("sslmode") == true, "\(String(describing: error))")
            #expect(error?.message.contains("verify-full") == true, "\(String(describing: error))")
        }
    }

    @Test("without sslmode: no TLS to a loopback host or a Unix socket, prefer (libpq's default) to any other")
    func defaultSSLMode() throws {
        for local in [
            "postgres://u@127.0.0.1/db", "postgres://u@127.4.5.6:5433/db", "postgres://u@localhost/db",
            "postgres://u@[::1]:5432/db", "postgres://u@[::ffff:127.0.0.1]/db", "postgres://u@/db?host=/run/pg",
        ] {
            let parsed = try settings(local)
            #expect(parsed.sslMode == .disable, "\(local)")
            #expect(parsed.isLocal, "\(local)")
            #expect(parsed.plaintextWarning == nil, "\(local)")
        }
        for remote in [base, "postgres://u@10.0.0.5/db", "postgres://u@[2001:db8::5]/db", "postgres://u@128.0.0.1/db"] {
            let parsed = try settings(remote)
            #expect(parsed.sslMode == .prefer, "\(remote)")
            #expect(!parsed.isLocal, "\(remote)")
            #expect(parsed.needsTLSProbe, "\(remote)")
        }
        // The IPv6 host loses its brackets, so the driver can resolve it.
        #expect(try PostgresStore.configuration("postgres://u@[::1]:6543/db").connection.host == "::1")
    }

    @Test("a Unix socket: host= (or a host starting with /) names its directory, and no TLS is tried there")
    func unixSocket() throws {
        let query = try settings("postgres://umfa@/umfa?host=/var/run/postgresql&sslmode=require")
        #expect(query.endpoint == .unixSocket(path: "/var/run/postgresql/.s.PGSQL.5432"))
        #expect(query.tls == nil)
        #expect(query.pool.connection.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
        let encoded = try settings("postgres://umfa@%2Frun%2Fpg:5433/umfa")
        #expect(encoded.endpoint == .unixSocket(path: "/run/pg/.s.PGSQL.5433"))
        #expect(encoded.startupNotice(negotiatedTLS: nil) == nil)
    }

    @Test("a store opens over the Unix socket that host= names")
    func unixSocketStore() async throws {
        let base = try TestDatabase.baseURL()
        guard let data = ProcessInfo.processInfo.environment["UMFA_TEST_PGDATA"],
            let port = URLComponents(string: base)?.port
        else { throw FixtureFailure("UMFA_TEST_PGDATA is not set: run through scripts/with-postgres.sh") }
        let directory = (data as NSString).deletingLastPathComponent
        // The connect timeout leaves room for a machine busy with the rest of the suite.
        let store = try await PostgresStore.open(
            url: "postgres://postgres@:\(port)/umfa_test?host=\(directory)&connect_timeout=60",
            logger: TestDatabase.logger)
        // A connection over a Unix socket has no server IP address.
        let rows = try await store.rawRows("SELECT CASE WHEN inet_server_addr() IS NULL THEN 1 ELSE 0 END AS socket")
        try await store.close()
        #expect(rows.first?.optionalInteger("socket") == 1)
    }

    @Test("plaintext to a host that is not loopback is a warning: sslmode=disable at once, prefer when it fell back")
    func plaintextWarnings() throws {
        let disabled = try settings(base + "?sslmode=disable")
        let warning = try #require(disabled.plaintextWarning)
        #expect(warning.contains("db.internal:5432") && warning.contains("verify-full"))
        #expect(!warning.contains("secret"), "the password is never in the log")
        #expect(disabled.startupNotice(negotiatedTLS: nil)?.level == .warning)
        #expect(!disabled.needsTLSProbe)

        let preferred = try settings(base)
        #expect(preferred.plaintextWarning == nil)
        let fellBack = try #require(preferred.startupNotice(negotiatedTLS: false))
        #expect(fellBack.level == .warning)
        #expect(fellBack.message.contains("fell back to plaintext"))
        #expect(preferred.startupNotice(negotiatedTLS: nil)?.level == .warning, "unknown is not assumed safe")
        #expect(preferred.startupNotice(negotiatedTLS: true)?.level == .info, "TLS, but nobody checked who answered")
        #expect(try settings(base + "?sslmode=verify-full").startupNotice(negotiatedTLS: nil) == nil)
        #expect(try settings("postgres://u@127.0.0.1/db?sslmode=disable").startupNotice(negotiatedTLS: false) == nil)
    }

    @Test("sslrootcert: a CA file to trust; missing or not PEM stops the start naming it")
    func rootCertificate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.pem").path
        let error = #expect(throws: StoreError.self) {
            try PostgresStore.configuration(base + "?sslmode=verify-full&sslrootcert=\(missing)")
        }
        #expect(error?.message.contains("sslrootcert") == true && error?.message.contains(missing) == true)
        let garbage = directory.appendingPathComponent("garbage.pem")
        try Data("not a certificate".utf8).write(to: garbage)
        let notPEM = #expect(throws: StoreError.self) {
            try PostgresStore.configuration(base + "?sslmode=verify-ca&sslrootcert=\(garbage.path)")
        }
        #expect(notPEM?.message.contains("holds no PEM certificate") == true, "\(String(describing: notPEM))")

        let authority = directory.appendingPathComponent("ca.pem")
        try Data(Self.certificatePEM.utf8).write(to: authority)
        let full = try settings(base + "?sslmode=verify-full&sslrootcert=\(authority.path)")
        #expect(full.tls?.trustRoots == .certificates(try NIOSSLCertificate.fromPEMFile(authority.path)))
        // As in libpq: with a root certificate, require checks the chain like verify-ca.
        let required = try settings(base + "?sslmode=require&sslrootcert=\(authority.path)")
        #expect(required.tls?.certificateVerification == .noHostnameVerification)
        #expect(required.startupNotice(negotiatedTLS: true) == nil)
        let system = try settings(base + "?sslmode=verify-full&sslrootcert=system")
        #expect(system.tls?.trustRoots == .default)
    }

    /// A self-signed certificate (`openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256`).
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBhDCCASugAwIBAgIUFG3DfPuGHY0l89hIyIzEl9MVTTUwCgYIKoZIzj0EAwIw
        FzEVMBMGA1UEAwwMdW1mYS10ZXN0LWNhMCAXDTI2MTEyMzE4Mzk0NVoYDzIxMjYx
        MDMwMTgzOTQ1WjAXMRUwEwYDVQQDDAx1bWZhLXRlc3QtY2EwWTATBgcqhkjOPQIB
        BggqhkjOPQMBBwNCAARixSzU7B0Q1UBnScQNaW/d9K++vrnAECBzKNotRq0TTs5Y
        zv4FDLjcB+2B4sewnjZn2fcztjxHhSr9UX6zM8SFo1MwUTAdBgNVHQ4EFgQUBxjD
        6f5zFTwenmWAD1KOpXhGUPswHwYDVR0jBBgwFoAUBxjD6f5zFTwenmWAD1KOpXhG
        UPswDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiA4ZpGTDJtvGy7X
        P+9OfKdPW0QGmP2rQ24MCnV3WuswVgIgLaMeXBSHEORGH1bS8/emFg38qkaxF5Jk
        7DND3w5LUYo=
        -----END CERTIFICATE-----
        """
}
