import Foundation
import Logging
import Synchronization
import UMFAContract

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP side of the SDK's OAuth parts: every request with a DPoP proof of the device's key,
/// the server's `DPoP-Nonce` remembered and a `use_dpop_nonce` refusal answered once with it
/// (RFC 9449 §8), the app's headers added, and each exchange logged without a secret.
final class OAuthSession: Sendable {
    let configuration: OAuthConfiguration
    /// The DPoP key; `nil` when tokens are unbound (no proofs, `Bearer` tokens).
    let key: (any DPoPKeyProvider)?
    private let transport: any HTTPTransport
    private let nonce = Mutex<String?>(nil)

    /// A session over `configuration`'s ``OAuthConfiguration/transport``.
    init(configuration: OAuthConfiguration, key: (any DPoPKeyProvider)?) {
        self.configuration = configuration
        self.key = key
        self.transport = configuration.transport
    }

    /// An answer: status, headers (lower-case names) and body.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var data: Data
    }

    /// A request body.
    enum Body: Sendable {
        case none
        case form([String: String])
        case json(Data, names: [String])
    }

    /// Sends one request; with `accessToken`, as `Authorization: DPoP` (RFC 9449 §7.1), or as
    /// `Bearer` (RFC 6750 §2.1) without a DPoP key.
    func send(
        _ method: String, _ url: URL, body: Body = .none, accept: String = "application/json",
        accessToken: String? = nil, headers extra: [String: String] = [:]
    ) async throws(ZSMError) -> Answer {
        var answer = try await once(method, url, body: body, accept: accept, accessToken: accessToken, headers: extra)
        if Self.demandsNonce(answer) {
            configuration.logger.debug(
                "the server demands a DPoP nonce at \(method) \(SecretMasking.url(url)); sending again with it")
            answer = try await once(method, url, body: body, accept: accept, accessToken: accessToken, headers: extra)
        }
        return answer
    }

    private func once(
        _ method: String, _ url: URL, body: Body, accept: String, accessToken: String?, headers extra: [String: String]
    ) async throws(ZSMError) -> Answer {
        var request = URLRequest(url: url, timeoutInterval: configuration.timeout)
        request.httpMethod = method
        request.setValue(accept, forHTTPHeaderField: "Accept")
        request.setValue("umfa-swift/\(UMFAClient.versionString)", forHTTPHeaderField: "User-Agent")
        if let provider = configuration.headerProvider {
            for (name, value) in await provider(url) { request.setValue(value, forHTTPHeaderField: name) }
        }
        for (name, value) in extra { request.setValue(value, forHTTPHeaderField: name) }
        if let key {
            let currentNonce = nonce.withLock { $0 }
            request.setValue(
                try await key.proof(
                    method: method, url: url, accessToken: accessToken, nonce: currentNonce, now: configuration.now()),
                forHTTPHeaderField: "DPoP")
        }
        if let accessToken {
            request.setValue("\(key == nil ? "Bearer" : "DPoP") \(accessToken)", forHTTPHeaderField: "Authorization")
        }
        var sent = ""
        switch body {
        case .none:
            break
        case .form(let form):
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(Self.encode(form).utf8)
            sent = SecretMasking.members(form.keys)
        case .json(let data, let names):
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = data
            sent = SecretMasking.members(names)
        }
        let logger = configuration.logger
        logger.trace("→ \(method) \(SecretMasking.url(url)) \(sent)")
        let data: Data
        let http: HTTPURLResponse
        do {
            (data, http) = try await transport.send(request)
        } catch let failure as any HTTPTransportFailure {
            logger.info("\(method) \(SecretMasking.url(url)): \(failure.zsmError.message)")
            throw failure.zsmError
        } catch {
            logger.info("\(method) \(SecretMasking.url(url)): the server could not be reached")
            throw ZSMError(.networkError, "cannot reach \(url.host ?? "the server")", recovery: .retry)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        if let given = headers["dpop-nonce"] { nonce.withLock { $0 = given } }
        let status = http.statusCode
        logger.debug("← \(status) \(method) \(SecretMasking.url(url))")
        return Answer(status: status, headers: headers, data: data)
    }

    /// Whether the answer is RFC 9449's demand for a (new) nonce: `use_dpop_nonce` in the body
    /// (token endpoint, §8) or in `WWW-Authenticate` (resources, §9), with a `DPoP-Nonce`.
    private static func demandsNonce(_ answer: Answer) -> Bool {
        guard answer.headers["dpop-nonce"] != nil, answer.status == 400 || answer.status == 401 else { return false }
        if answer.headers["www-authenticate"]?.contains("use_dpop_nonce") == true { return true }
        return (try? JSONDecoder().decode(OAuthErrorAnswer.self, from: answer.data))?.error == "use_dpop_nonce"
    }

    /// `application/x-www-form-urlencoded`, names sorted.
    static func encode(_ form: [String: String]) -> String {
        form.sorted { $0.key < $1.key }
            .map { "\(ClientAuthentication.formEncode($0.key))=\(ClientAuthentication.formEncode($0.value))" }
            .joined(separator: "&")
    }
}

/// An RFC 6749 §5.2 error answer, as any server writes it.
public struct OAuthErrorAnswer: Codable, Sendable, Equatable {
    /// The error code (`invalid_grant`, …).
    public var error: String
    /// Words for a developer.
    public var errorDescription: String?
    /// UMFA's trace id, when the server is UMFA.
    public var traceId: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case traceId = "trace_id"
    }

    /// UMFA's trace id, by its former name.
    @available(*, deprecated, renamed: "traceId")
    public var traceID: String? {
        get { traceId }
        set { traceId = newValue }
    }
}
