import Foundation
import UMFAWebAuthn

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``RelyingParty``: the UMFA HTTP API v1 over `URLSession`, with the
/// configuration's timeout, retries (for options requests only, which are safe to repeat),
/// headers and a trace id per request.
public struct UMFAHTTPRelyingParty: RelyingParty {
    let config: ZSMConfig
    let session: URLSession

    /// Creates the relying party for `config`.
    public init(config: ZSMConfig, session: URLSession = .shared) {
        self.config = config
        self.session = session
    }

    struct OptionsEnvelope<Options: Decodable>: Decodable {
        let traceID: String?
        let publicKey: Options

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case publicKey
        }
    }

    struct OutcomeBody: Decodable {
        let traceID: String?
        let userID: String
        let credentialID: String
        let token: String?

        enum CodingKeys: String, CodingKey {
            case traceID = "trace_id"
            case userID = "user_id"
            case credentialID = "credential_id"
            case token
        }
    }

    /// `POST /api/umfa/registration/options`.
    public func beginRegistration(userId: String, displayName: String?, enrollmentToken: String?) async throws(ZSMError)
        -> CeremonyOptions<CreationOptionsJSON>
    {
        var body: [String: JSONValue] = ["application_id": .string(config.applicationId), "user_id": .string(userId)]
        if let displayName { body["display_name"] = .string(displayName) }
        if let enrollmentToken { body["enrollment_token"] = .string(enrollmentToken) }
        let envelope: OptionsEnvelope<CreationOptionsJSON> = try await post(
            "/api/umfa/registration/options", body, retry: true)
        return CeremonyOptions(options: envelope.publicKey, traceId: envelope.traceID)
    }

    /// `POST /api/umfa/registration/verify`.
    public func finishRegistration(userId: String, credential: RegistrationResponseJSON, deviceName: String?)
        async throws(ZSMError) -> CeremonyOutcome
    {
        var body: [String: JSONValue] = [
            "application_id": .string(config.applicationId), "user_id": .string(userId),
            "credential": try Self.json(credential),
        ]
        if let deviceName { body["device_name"] = .string(deviceName) }
        return try await outcome("/api/umfa/registration/verify", body)
    }

    /// `POST /api/umfa/authentication/options`.
    public func beginAuthentication(userId: String?) async throws(ZSMError) -> CeremonyOptions<RequestOptionsJSON> {
        var body: [String: JSONValue] = ["application_id": .string(config.applicationId)]
        if let userId { body["user_id"] = .string(userId) }
        let envelope: OptionsEnvelope<RequestOptionsJSON> = try await post(
            "/api/umfa/authentication/options", body, retry: true)
        return CeremonyOptions(options: envelope.publicKey, traceId: envelope.traceID)
    }

    /// `POST /api/umfa/authentication/verify`.
    public func finishAuthentication(userId: String?, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        var body: [String: JSONValue] = [
            "application_id": .string(config.applicationId), "credential": try Self.json(credential),
        ]
        if let userId { body["user_id"] = .string(userId) }
        return try await outcome("/api/umfa/authentication/verify", body)
    }

    /// `POST /api/umfa/unenroll`.
    public func unenroll(userId: String, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        try await outcome(
            "/api/umfa/unenroll",
            [
                "application_id": .string(config.applicationId), "user_id": .string(userId),
                "credential": try Self.json(credential),
            ])
    }

    private func outcome(_ path: String, _ body: [String: JSONValue]) async throws(ZSMError) -> CeremonyOutcome {
        let answer: OutcomeBody = try await post(path, body, retry: false)
        return CeremonyOutcome(
            userId: answer.userID, credentialId: answer.credentialID, token: answer.token, traceId: answer.traceID)
    }

    static func json(_ value: some Encodable) throws(ZSMError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        } catch {
            throw ZSMError(.invalidConfiguration, "a response could not be encoded")
        }
    }

    /// Posts JSON and decodes the answer, mapping failures to ``ZSMError``.
    private func post<Answer: Decodable>(_ path: String, _ body: [String: JSONValue], retry: Bool)
        async throws(ZSMError) -> Answer
    {
        var body = body
        let traceID = UUID().uuidString.lowercased()
        body["trace_id"] = .string(traceID)
        // Appended, not resolved: a server behind a path prefix (https://example.com/mfa) keeps it.
        var base = config.hostURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + path) else {
            throw ZSMError(.invalidConfiguration, "host_url cannot be combined with \(path)")
        }
        var request = URLRequest(url: url, timeoutInterval: config.timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(config.applicationEnvironment, forHTTPHeaderField: "X-UMFA-Environment")
        request.setValue("umfa-swift/\(UMFAVersion.string)", forHTTPHeaderField: "User-Agent")
        if let consumer = config.consumerId { request.setValue(consumer, forHTTPHeaderField: "X-UMFA-Consumer-Id") }
        for (name, value) in config.headers { request.setValue(value, forHTTPHeaderField: name) }
        do {
            request.httpBody = try JSONEncoder().encode(body)
        } catch {
            throw ZSMError(.invalidConfiguration, "the request could not be encoded")
        }
        let attempts = retry ? config.retryCount + 1 : 1
        var lastError = ZSMError(.networkError, "no attempt was made", traceId: traceID)
        for attempt in 0..<attempts {
            if attempt > 0 { try? await Task.sleep(for: .milliseconds(200 * (1 << min(attempt, 4)))) }
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await session.data(for: request)
            } catch {
                lastError = ZSMError(
                    .networkError, "cannot reach \(config.hostURL.host ?? "the server")", traceId: traceID)
                continue
            }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 200 || status == 201 else {
                lastError = Self.serverError(status: status, data: data, traceID: traceID)
                if retry, status >= 500 || status == 429 { continue }
                throw lastError
            }
            do {
                return try JSONDecoder().decode(Answer.self, from: data)
            } catch {
                throw ZSMError(
                    .serverError, "the server's answer could not be read", httpStatus: status, traceId: traceID)
            }
        }
        throw lastError
    }

    /// Maps an error answer `{"status","trace_id","message"}` to a ``ZSMError``.
    static func serverError(status: Int, data: Data, traceID: String) -> ZSMError {
        struct Body: Decodable {
            let message: String?
            let traceID: String?

            enum CodingKeys: String, CodingKey {
                case message
                case traceID = "trace_id"
            }
        }
        let body = try? JSONDecoder().decode(Body.self, from: data)
        let message = body?.message ?? "HTTP \(status)"
        let trace = body?.traceID ?? traceID
        switch status {
        case 401: return ZSMError(.verificationFailed, message, httpStatus: status, traceId: trace)
        case 403: return ZSMError(.enrollmentNotAllowed, message, httpStatus: status, traceId: trace)
        case 409: return ZSMError(.alreadyEnrolled, message, httpStatus: status, traceId: trace)
        case 429, 500...599:
            return ZSMError(.serverError, message, recovery: .retry, httpStatus: status, traceId: trace)
        default: return ZSMError(.serverError, message, httpStatus: status, traceId: trace)
        }
    }
}
