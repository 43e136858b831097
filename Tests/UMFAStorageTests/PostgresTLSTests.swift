import Foundation
import Testing
import UMFATestSupport

@testable import UMFAStorage

/// The TLS modes against a real server: a private cluster with `ssl=on` and a certificate from
/// a certificate authority made here with `openssl` (its one name: DNS name `localhost`).
@Suite("Storage: PostgreSQL TLS")
struct PostgresTLSTests {
    @Test("verify-full trusts the sslrootcert CA and checks the name; prefer says when it fell back to plaintext")
    func tlsModes() async throws {
        let plain = try TestDatabase.baseURL()
        let cluster = try await PrivateCluster.start()
        do {
            let tls = try await Self.enableTLS(cluster)
            // Connections that must succeed get a minute for a TLS handshake with a just-started
            // cluster on a machine busy with the rest of the suite; refusals fail at once.
            let base = "postgres://postgres@127.0.0.1:\(cluster.port)/postgres?connect_timeout=60"
            let byName = "postgres://postgres@localhost:\(cluster.port)/postgres?connect_timeout=60"
            let trusted = "&sslrootcert=\(tls)/ca.pem"
            let stranger = "&sslrootcert=\(tls)/other-ca.pem"

            // The store opens and migrates over a verified connection.
            let store = try await PostgresStore.open(
                url: byName + "&sslmode=verify-full" + trusted, logger: TestDatabase.logger)
            try await store.close()
            #expect(try await Self.usesTLS(byName + "&sslmode=verify-full" + trusted) == true)
            // The certificate names localhost, not 127.0.0.1: verify-ca passes, verify-full does not.
            #expect(try await Self.usesTLS(base + "&sslmode=verify-ca" + trusted) == true)
            await Self.expectRefused(base + "&sslmode=verify-full" + trusted)
            // A certificate from a CA that was not named is refused, even by require (libpq's rule).
            await Self.expectRefused(byName + "&sslmode=verify-full" + stranger)
            await Self.expectRefused(base + "&sslmode=require" + stranger)
            // Without a CA file, require encrypts without checking; so does prefer.
            #expect(try await Self.usesTLS(base + "&sslmode=require") == true)
            #expect(try await Self.usesTLS(base + "&sslmode=prefer") == true)

            // The shared cluster has no TLS: prefer falls back, and the probe tells; require refuses.
            #expect(try await Self.usesTLS(TestDatabase.url(plain, adding: "sslmode", "prefer")) == false)
            await Self.expectRefused(TestDatabase.url(plain, adding: "sslmode", "require") + "&connect_timeout=60")
        } catch {
            await cluster.remove()
            throw error
        }
        await cluster.remove()
    }

    /// Whether a connection made with `url` uses TLS, as the server sees it (`pg_stat_ssl`).
    static func usesTLS(_ url: String) async throws -> Bool? {
        let settings = try PostgresConnectionSettings(url: url)
        let executor = PostgresExecutor(
            configuration: settings.pool, leaseTimeout: .seconds(30), logger: TestDatabase.logger)
        executor.startStandalone()
        do {
            _ = try await executor.rows(StoreQuery("SELECT 1 AS one"))
        } catch {
            try? await executor.close()
            throw error
        }
        let tls = await PostgresStore.negotiatedTLS(executor)
        try await executor.close()
        return tls
    }

    /// Connecting with `url` fails as unavailable, at once with the refusal's cause: the URLs
    /// give a minute's `connect_timeout`, which a refusal waited for would show as "no
    /// connection within".
    static func expectRefused(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        let error = await #expect(throws: StoreError.self, sourceLocation: sourceLocation) {
            _ = try await PostgresStore.open(url: url, logger: TestDatabase.logger)
        }
        #expect(error?.code == .unavailable, sourceLocation: sourceLocation)
        #expect(
            error?.message.contains("no connection within") == false, "\(String(describing: error))",
            sourceLocation: sourceLocation)
    }

    /// Makes a CA, a server certificate for localhost signed by it and an unrelated CA, turns
    /// TLS on in `cluster` and waits until it answers over TLS; returns the certificates' folder.
    static func enableTLS(_ cluster: PrivateCluster) async throws -> String {
        let folder = cluster.directory + "/tls"
        let key = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
        let authority = "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign"
        try await Shell.run(
            """
            set -e; mkdir -p '\(folder)'; cd '\(folder)'
            openssl req -x509 \(key) -keyout ca.key -out ca.pem -subj /CN=umfa-test-ca -days 2 \(authority) 2>/dev/null
            openssl req -x509 \(key) -keyout other-ca.key -out other-ca.pem -subj /CN=umfa-other-ca -days 2 \
              \(authority) 2>/dev/null
            openssl req \(key) -keyout server.key -out server.csr -subj /CN=umfa-test-db 2>/dev/null
            printf 'subjectAltName=DNS:localhost\\nextendedKeyUsage=serverAuth\\n' > server.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \
              -extfile server.ext 2>/dev/null
            chmod 600 server.key
            """)
        if !cluster.runAs.isEmpty { try await Shell.run("chown -R postgres '\(folder)'") }
        try await Shell.run(
            "printf \"ssl = on\\nssl_cert_file = '\(folder)/server.pem'\\nssl_key_file = '\(folder)/server.key'\\n\" "
                + ">> '\(cluster.directory)/data/postgresql.conf' && "
                + "\(cluster.runAs) '\(cluster.binaries)/pg_ctl' -D '\(cluster.directory)/data' reload >/dev/null")
        try await Shell.run(
            "for i in $(seq 100); do \(cluster.runAs) '\(cluster.binaries)/psql' "
                + "'host=127.0.0.1 port=\(cluster.port) user=postgres dbname=postgres sslmode=require' "
                + "-qAtc 'SELECT 1' >/dev/null 2>&1 && exit 0; sleep 0.2; done; exit 1")
        return folder
    }
}
