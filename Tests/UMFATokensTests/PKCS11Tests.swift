import Crypto
import Foundation
import Testing

@testable import UMFATokens

@Suite("PKCS #11: URIs (RFC 7512)")
struct PKCS11URITests {
    @Test("token and key attributes, percent-decoded")
    func parses() throws {
        let uri = try PKCS11URI("pkcs11:token=My%20HSM;object=es256;id=%01%02;type=private")
        #expect(uri.token == "My HSM" && uri.object == "es256" && uri.id == [1, 2])
        #expect(try PKCS11URI("pkcs11:serial=0123;id=%ff").serial == "0123")
        #expect(try PKCS11URI("pkcs11:slot-id=7;object=k").slotID == 7)
        let described = try PKCS11URI("PKCS11:manufacturer=SoftHSM%20project;model=SoftHSM%20v2;token=t;object=k")
        #expect(described.manufacturer == "SoftHSM project" && described.model == "SoftHSM v2")
    }

    @Test(
        "refused: another scheme, a PIN, query attributes, no token, no key, a public type, unknown attributes, bad escapes",
        arguments: [
            ("file:token=a;object=b", "starts with pkcs11:"),
            ("pkcs11:token=a;object=b?pin-value=1234", "must not carry the PIN"),
            ("pkcs11:token=a;object=b?pin-source=file:/p", "must not carry the PIN"),
            ("pkcs11:token=a;object=b?module-path=/x.so", "no query attributes"),
            ("pkcs11:object=b", "must name the token"),
            ("pkcs11:token=a", "must name the key"),
            ("pkcs11:token=a;object=b;type=public", "type must be private"),
            ("pkcs11:token=a;object=b;library-version=1", "not supported"),
            ("pkcs11:token=a;object=%zz", "no valid value"),
            ("pkcs11:token=a;slot-id=x;object=b", "slot-id must be a number"),
            ("pkcs11:token=a;object=b;object=c", "twice"),
            ("pkcs11:token=;object=b", "no valid value"),
            ("pkcs11:token=a;id=%+1", "no valid value"),
        ])
    func refuses(text: String, words: String) {
        let error = #expect(throws: PKCS11URI.Failure.self) { try PKCS11URI(text) }
        #expect(error?.description.contains(words) == true, "\(text): \(error?.description ?? "")")
        #expect(error?.description.contains("1234") != true)
    }
}

/// A SoftHSM2 token made for this suite (Debian's `softhsm2` and OpenSC's `pkcs11-tool`, which
/// scripts/test.sh installs): its configuration is the process's, read when the module starts.
/// scripts/swift-test.sh names the file before the tests start (`UMFA_TEST_SOFTHSM2_CONF`, also
/// as `SOFTHSM2_CONF`); run otherwise, the suite sets `SOFTHSM2_CONF` itself.
@Suite("PKCS #11: signing with SoftHSM2", .serialized)
struct PKCS11SigningTests {
    static let module = "/usr/lib/softhsm/libsofthsm2.so"
    static let pin = "135790"

    /// Makes the token with an EC P-256 and an RSA-2048 key pair; its directory.
    static func makeToken() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-hsm-\(UUID())")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("tokens"), withIntermediateDirectories: true)
        let environment = ProcessInfo.processInfo.environment
        let given = environment["UMFA_TEST_SOFTHSM2_CONF"].flatMap { $0 == environment["SOFTHSM2_CONF"] ? $0 : nil }
        let config = given.map(URL.init(fileURLWithPath:)) ?? directory.appendingPathComponent("softhsm2.conf")
        try "directories.tokendir = \(directory.path)/tokens\nobjectstore.backend = file\n".write(
            to: config, atomically: true, encoding: .utf8)
        // Changing the environment while other suites read it could crash the process: only when
        // no runner named the file.
        if given == nil { setenv("SOFTHSM2_CONF", config.path, 1) }
        try run("softhsm2-util", "--init-token", "--free", "--label", "swift", "--pin", pin, "--so-pin", "24680")
        for (type, label) in [("EC:prime256v1", "es"), ("rsa:2048", "rs")] {
            try run(
                "pkcs11-tool", "--module", module, "--token-label", "swift", "--login", "--pin", pin, "--keypairgen",
                "--key-type", type, "--label", label)
        }
        return directory
    }

    static func run(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PKCS11Failure("\(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }

    @Test("a wrong PIN is named; the token signs ES256 and RS256; a session closed under UMFA is opened again")
    func signs() throws {
        let directory = try Self.makeToken()
        defer { try? FileManager.default.removeItem(at: directory) }
        let module = try PKCS11Module(path: Self.module)
        let es = try PKCS11URI("pkcs11:token=swift;object=es")
        let rs = try PKCS11URI("pkcs11:token=swift;object=rs")

        let wrong = PKCS11Keys(module: module, pin: "000000")
        let refusal = #expect(throws: PKCS11Failure.self) { try wrong.checkPrivateKey(es) }
        #expect(refusal?.description.contains("is not the token's user PIN") == true)
        #expect(refusal?.description.contains("000000") == false)

        let keys = PKCS11Keys(module: module, pin: Self.pin)
        let input = Data("eyJhbGciOiJFUzI1NiJ9.e30".utf8)
        for (uri, algorithm) in [(es, TokenSigningAlgorithm.es256), (rs, .rs256)] {
            let material = try TokenKeyMaterial(
                hsm: uri, algorithm: algorithm, keys: keys,
                publicKeyBytes: try keys.publicKey(uri, algorithm: algorithm))
            let signature = try material.signature(for: input)
            #expect(material.isValidSignature(signature, for: input), "\(algorithm)")
            #expect(!material.isValidSignature(signature, for: input + Data([0])))
            if algorithm == .es256 { #expect(signature.count == 64, "JWS R ‖ S") }

            // Every session of the token ends (as a token reset would): the next signature
            // opens a new one and logs in again.
            let slot = try module.slot(for: uri)
            #expect(module.functions.pointee.closeAllSessions(slot) == PKCS11.ok)
            #expect(material.isValidSignature(try material.signature(for: input), for: input))
        }
        let mismatch = #expect(throws: PKCS11Failure.self) { try keys.publicKey(es, algorithm: .rs256) }
        #expect(mismatch?.description.contains("RSA") == true)
        #expect(throws: PKCS11Failure.self) { try keys.checkPrivateKey(PKCS11URI("pkcs11:token=swift;object=none")) }
    }
}
