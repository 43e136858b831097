import ArgumentParser
import Foundation
import UMFAContract
import UMFAQR

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `umfa oauth device`: the device authorization grant (RFC 8628) from a terminal, for a device
/// without a browser: it asks the issuer for codes, shows the user code, the page and a QR code of
/// the page with the code filled in (on standard error), polls the token endpoint at the interval
/// the issuer sets (longer after each `slow_down`) and prints the tokens as JSON on standard output.
struct OAuthDeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Sign in this device through another one's browser (RFC 8628); print the tokens.",
        discussion: """
            The code and the page go to standard error, with a QR code of the page (--no-qr leaves \
            it out). A confidential client reads its secret from standard input (--client-secret-stdin); \
            a public client sends only its id.
            """)

    @Option(help: "The issuer, such as http://localhost:8080/oidc/<application id>.") var issuer: String
    @Option(name: .customLong("client-id"), help: "The client's id.") var clientID: String
    @Option(help: "Space-separated scopes (none: all the client's).") var scope: String?
    @Flag(name: .customLong("client-secret-stdin"), help: "Read the client's secret from standard input.")
    var secretStdin = false
    @Flag(name: .customLong("no-qr"), help: "Do not draw the QR code.") var noQR = false

    struct Refusal: Decodable {
        let error: String
        let errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    func run() async throws {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        guard let discovery = URL(string: base + "/.well-known/openid-configuration"), discovery.host != nil else {
            throw ValidationError("--issuer must be an http(s) URL")
        }
        let secret = secretStdin ? StandardInput.firstLine() : nil
        if secretStdin, secret == nil { throw ValidationError("standard input holds no client secret") }
        let metadata: AuthorizationServerMetadata = try await Self.decode(
            try await Self.send(URLRequest(url: discovery)), "the discovery document")
        guard let endpoint = metadata.deviceAuthorizationEndpoint.flatMap(URL.init(string:)),
            let tokenEndpoint = URL(string: metadata.tokenEndpoint)
        else { throw Self.fail("the issuer offers no device authorization endpoint") }
        // Step 1 (RFC 8628 §3.1): the codes.
        var form: [(String, String)] = []
        if let scope { form.append(("scope", scope)) }
        let started: DeviceAuthorizationResponse = try await Self.decode(
            try await Self.send(request(endpoint, form, secret: secret)), "the device authorization")
        // Step 2 (§3.3): the person goes to the page.
        var text = "Open \(started.verificationURI) and enter the code \(started.userCode)\n"
        text += "or open \(started.verificationURIComplete)\n"
        if !noQR, let code = try? QRCode(text: started.verificationURIComplete) { text += code.terminalText() }
        FileHandle.standardError.write(Data(text.utf8))
        // Step 3 (§3.4, §3.5): poll until the person decides or the codes expire.
        var interval = started.interval
        let deadline = Date().addingTimeInterval(TimeInterval(started.expiresIn))
        while Date() < deadline {
            try await Task.sleep(for: .seconds(interval))
            let (status, data) = try await Self.send(
                request(
                    tokenEndpoint,
                    [
                        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                        ("device_code", started.deviceCode),
                    ],
                    secret: secret))
            if status == 200 {
                FileHandle.standardOutput.write(data + Data("\n".utf8))
                return
            }
            let refusal = try? JSONDecoder().decode(Refusal.self, from: data)
            switch refusal?.error {
            case "authorization_pending": continue
            case "slow_down": interval += 5
            default:
                throw Self.fail(
                    "the token endpoint refused: \(refusal?.error ?? "HTTP \(status)")"
                        + (refusal?.errorDescription.map { " (\($0))" } ?? ""))
            }
        }
        throw Self.fail("the codes expired before anyone decided")
    }

    /// A form POST with the client's authentication: HTTP Basic with the secret, else `client_id`.
    private func request(_ url: URL, _ parameters: [(String, String)], secret: String?) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = 30
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var form = parameters
        if let secret {
            let pair = Self.encode(clientID) + ":" + Self.encode(secret)
            request.setValue("Basic " + Data(pair.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        } else {
            form.append(("client_id", clientID))
        }
        request.httpBody = Data(form.map { Self.encode($0.0) + "=" + Self.encode($0.1) }.joined(separator: "&").utf8)
        return request
    }

    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func send(_ request: URLRequest) async throws -> (Int, Data) {
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch {
            throw fail("cannot reach \(request.url?.absoluteString ?? ""): \(error.localizedDescription)")
        }
    }

    private static func decode<Value: Decodable>(_ reply: (Int, Data), _ what: String) async throws -> Value {
        guard reply.0 == 200, let value = try? JSONDecoder().decode(Value.self, from: reply.1) else {
            let refusal = try? JSONDecoder().decode(Refusal.self, from: reply.1)
            throw fail(
                "\(what) failed: \(refusal?.error ?? "HTTP \(reply.0)")"
                    + (refusal?.errorDescription.map { " (\($0))" } ?? ""))
        }
        return value
    }

    private static func fail(_ message: String) -> ExitCode {
        CommandIO.printError(message)
        return ExitCode(1)
    }
}
