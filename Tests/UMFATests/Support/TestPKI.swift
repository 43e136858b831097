import Foundation
import UMFATestSupport

/// Certificates made by `openssl` for one test: a CA with a server certificate for `localhost`
/// and a client certificate, a second CA and its own server certificate for `localhost`, a
/// self-signed server certificate, and the client identity as PKCS#12 too.
struct TestPKI: Sendable {
    let directory: URL

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Makes the certificates in a new temporary directory.
    static func make() async throws -> TestPKI {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
        try await Shell.run(
            """
            set -e; cd '\(directory.path)'
            printf 'subjectAltName=DNS:localhost\\nbasicConstraints=CA:FALSE\\nextendedKeyUsage=serverAuth\\n' > server.ext
            printf 'basicConstraints=CA:FALSE\\nextendedKeyUsage=clientAuth\\n' > client.ext
            for ca in ca other-ca; do
              openssl req -x509 \(ec) -keyout $ca.key -out $ca.pem -days 2 -subj "/CN=UMFA Test $ca" 2>/dev/null
              openssl req \(ec) -keyout $ca-server.key -out $ca-server.csr -subj /CN=localhost 2>/dev/null
              openssl x509 -req -in $ca-server.csr -CA $ca.pem -CAkey $ca.key -CAcreateserial -days 2 \\
                -extfile server.ext -out $ca-server.pem 2>/dev/null
            done
            openssl req -x509 \(ec) -keyout self.key -out self.pem -days 2 -subj /CN=localhost \\
              -addext subjectAltName=DNS:localhost 2>/dev/null
            openssl req \(ec) -keyout client.key -out client.csr -subj "/CN=client-1/O=UMFA Test" 2>/dev/null
            openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \\
              -extfile client.ext -out client.pem 2>/dev/null
            openssl pkcs12 -export -in client.pem -inkey client.key -passout pass:p12-secret -out client.p12
            """)
        return TestPKI(directory: directory)
    }

    /// The pin of a certificate's key, the way HPKP documents it (RFC 7469 §2.4): the DER
    /// SubjectPublicKeyInfo, SHA-256, base64; computed by openssl, not by the SDK.
    func pin(of certificate: String) async throws -> String {
        let out = path("\(certificate).pin")
        try await Shell.run(
            "openssl x509 -in '\(path(certificate))' -pubkey -noout | openssl pkey -pubin -outform der"
                + " | openssl dgst -sha256 -binary | base64 > '\(out)'")
        return try String(contentsOfFile: out, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// `openssl s_server -www` on a port it picks: it answers every request with a page describing
/// the handshake, a client certificate's subject included.
struct OpenSSLServer: Sendable {
    let port: Int
    let pid: String
    let log: String

    /// Starts a server with `certificate` and `key`; with `clientCA`, it demands a client
    /// certificate issued by that CA (`-Verify 1`).
    static func start(pki: TestPKI, certificate: String, key: String, clientCA: String? = nil) async throws
        -> OpenSSLServer
    {
        let name = UUID().uuidString
        let log = pki.path("\(name).log")
        let pidFile = pki.path("\(name).pid")
        let verify = clientCA.map { "-Verify 1 -CAfile '\(pki.path($0))'" } ?? ""
        // The test process blocks most signals in the threads it spawns from, and a child
        // inherits that mask: without clearing it, neither `kill` nor `timeout` would end it.
        let unblocked =
            "python3 -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []);"
            + " os.execvp(sys.argv[1], sys.argv[1:])'"
        try await Shell.run(
            "\(unblocked) timeout 120 openssl s_server -accept 0 -www -cert '\(pki.path(certificate))'"
                + " -key '\(pki.path(key))' \(verify) > '\(log)' 2>&1 & echo $! > '\(pidFile)'")
        let pid = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        // Waits for the port line, not for a count of polls: on a machine busy with the rest of
        // the suite, starting Python and OpenSSL has taken more than five seconds. A server that
        // exits early (a bad key, say) fails at once with its own words.
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            // Whole lines only: a line still being written would give a port cut short.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if let line = lines.first(where: { $0.hasPrefix("ACCEPT") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0) })
            {
                return OpenSSLServer(port: port, pid: pid, log: log)
            }
            if let id = pid_t(pid), kill(id, 0) != 0 {
                let last = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw Shell.Failure("openssl s_server exited before listening: \(last)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Shell.Failure("openssl s_server did not listen within 90 s")
    }

    func url(_ host: String = "localhost") -> URL {
        URL(string: "https://\(host):\(port)/") ?? URL(fileURLWithPath: "/")
    }

    /// Stops this server (the `timeout` that runs it passes the signal on).
    func stop() async { try? await Shell.run("kill \(pid)") }
}
