import Foundation
import UMFAContract
import UMFAWebAuthnModel
import UMFAWebAuthnTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``RelyingParty``: the UMFA HTTP API v1 over the configuration's
/// ``ZSMConfig/transport``, with its timeout, retries (for options requests only, which are safe
/// to repeat), headers and a trace id per request.
public struct UMFAHTTPRelyingParty: RelyingParty {
    let config: ZSMConfig
    let transport: any HTTPTransport

    /// Creates the relying party for `config`; with `session`, over that `URLSession` instead
    /// of ``ZSMConfig/transport``.
    public init(config: ZSMConfig, session: URLSession? = nil) {
        self.config = config
        self.transport = session.map { URLSessionTransport(session: $0) } ?? config.transport
    }

    /// `POST /api/umfa/registration/options`.
    public func beginRegistration(userId: String, displayName: String?, enrollmentToken: String?) async throws(ZSMError)
        -> CeremonyOptions<CreationOptionsJSON>
    {
        let answer: RegistrationOptionsResponse = try await post(.registrationOptions, retry: true) {
            RegistrationOptionsRequest(
                applicationID: config.applicationId, userID: userId, displayName: displayName,
                enrollmentToken: enrollmentToken, traceID: $0)
        }
        return CeremonyOptions(options: answer.publicKey, traceId: answer.traceID)
    }

    /// `POST /api/umfa/registration/verify`.
    public func finishRegistration(userId: String, credential: RegistrationResponseJSON, deviceName: String?)
        async throws(ZSMError) -> CeremonyOutcome
    {
        let answer: CeremonyResponse = try await post(.registrationVerify, retry: false) {
            RegistrationVerifyRequest(
                applicationID: config.applicationId, userID: userId, credential: credential, deviceName: deviceName,
                traceID: $0)
        }
        return CeremonyOutcome(
            userId: answer.userID, credentialId: answer.credentialID, token: answer.token, traceId: answer.traceID)
    }

    /// `POST /api/umfa/authentication/options`.
    public func beginAuthentication(userId: String?) async throws(ZSMError) -> CeremonyOptions<RequestOptionsJSON> {
        let answer: AuthenticationOptionsResponse = try await post(.authenticationOptions, retry: true) {
            AuthenticationOptionsRequest(applicationID: config.applicationId, userID: userId, traceID: $0)
        }
        return CeremonyOptions(options: answer.publicKey, traceId: answer.traceID)
    }

    /// `POST /api/umfa/authentication/verify`.
    public func finishAuthentication(userId: String?, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        let answer: CeremonyResponse = try await post(.authenticationVerify, retry: false) {
            AuthenticationVerifyRequest(
                applicationID: config.applicationId, userID: userId, credential: credential, traceID: $0)
        }
        return CeremonyOutcome(
            userId: answer.userID, credentialId: answer.credentialID, token: answer.token, traceId: answer.traceID)
    }

    /// `POST /api/umfa/unenroll`.
    public func unenroll(userId: String, credential: AuthenticationResponseJSON) async throws(ZSMError)
        -> CeremonyOutcome
    {
        let answer: UnenrollResponse = try await post(.unenroll, retry: false) {
            UnenrollRequest(applicationID: config.applicationId, userID: userId, credential: credential, traceID: $0)
        }
        return CeremonyOutcome(
            userId: answer.userID, credentialId: answer.credentialID, token: nil, traceId: answer.traceID)
    }

    /// `DELETE /api/umfa/me` with the login token; sent once (a deletion is not repeated), 204
    /// expected.
    public func deleteAccount(userId: String, loginToken: String) async throws(ZSMError) {
        let traceID = UUID().uuidString.lowercased()
        var request = try request(.deleteMyAccount)
        request.setValue("Bearer \(loginToken)", forHTTPHeaderField: "Authorization")
        let data: Data
        let response: HTTPURLResponse
        do {
            (data, response) = try await transport.send(request)
        } catch let failure as any HTTPTransportFailure {
            throw failure.zsmError
        } catch {
            throw ZSMError(.networkError, "cannot reach \(config.hostURL.host ?? "the server")", traceId: traceID)
        }
        guard response.statusCode == 204 else {
            throw Self.serverError(status: response.statusCode, data: data, traceID: traceID)
        }
    }

    /// A request for `operation` with the configured timeout and headers.
    func request(_ operation: APIOperation) throws(ZSMError) -> URLRequest {
        var request = URLRequest(url: try url(of: operation), timeoutInterval: config.timeout)
        request.httpMethod = operation.method
        request.setValue(config.applicationEnvironment, forHTTPHeaderField: "X-UMFA-Environment")
        request.setValue("umfa-swift/\(UMFAVersion.string)", forHTTPHeaderField: "User-Agent")
        if let consumer = config.consumerId { request.setValue(consumer, forHTTPHeaderField: "X-UMFA-Consumer-Id") }
        for (name, value) in config.headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Posts JSON and decodes the answer, mapping failures to ``ZSMError``.
    /// - Parameter authorization: makes the `Authorization` value for the request's URL (a
    ///   device proof), when the operation needs one.
    func post<Body: ContractBody, Answer: ContractBody>(
        _ operation: APIOperation, retry: Bool,
        authorization: ((URL) throws(ZSMError) -> String)? = nil, _ makeBody: (String) -> Body
    ) async throws(ZSMError) -> Answer {
        let traceID = UUID().uuidString.lowercased()
        let body = makeBody(traceID)
        var request = try request(operation)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let authorization, let url = request.url {
            request.setValue(try authorization(url), forHTTPHeaderField: "Authorization")
        }
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
            let response: HTTPURLResponse
            do {
                (data, response) = try await transport.send(request)
            } catch let failure as any HTTPTransportFailure where failure.zsmError.recovery != .retry {
                throw failure.zsmError
            } catch {
                lastError = ZSMError(
                    .networkError, "cannot reach \(config.hostURL.host ?? "the server")", traceId: traceID)
                continue
            }
            let status = response.statusCode
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

    /// The URL of `operation` on the configured host. Appended, not resolved: a server behind a
    /// path prefix (https://example.com/mfa) keeps it.
    func url(of operation: APIOperation) throws(ZSMError) -> URL {
        var base = config.hostURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + operation.path) else {
            throw ZSMError(.invalidConfiguration, "host_url cannot be combined with \(operation.path)")
        }
        return url
    }

    /// Maps an error answer `{"status","trace_id","message"}` to a ``ZSMError``.
    static func serverError(status: Int, data: Data, traceID: String) -> ZSMError {
        let body = try? JSONDecoder().decode(ErrorResponse.self, from: data)
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
