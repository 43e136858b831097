import Foundation
import UMFAContract

extension OAuthTokenManager {
    /// One token-endpoint request with `client`'s authentication (its attestation for the
    /// challenge in `attested`, for the flow token); the configuration's listener hears the
    /// answer, body and headers, before it is returned. `session` sends it (another DPoP key's).
    func tokenRequest(
        _ parameters: [String: String], client: Client,
        attested: (challenge: String, attestation: ClientAuthentication.ClientAttestation)? = nil,
        session: OAuthSession? = nil
    ) async -> TokenResponse {
        let session = session ?? self.session
        let url: URL
        do throws(ZSMError) {
            guard let endpoint = URL(string: try await metadata().tokenEndpoint) else {
                throw ZSMError(.invalidConfiguration, "the token endpoint is not a URL")
            }
            url = endpoint
        } catch {
            return .error(error)
        }
        let listener = configuration.tokenEndpointResponseListener
        var answer: OAuthSession.Answer?
        do throws(ZSMError) {
            var form = parameters
            var headers: [String: String] = [:]
            let authentication = attested == nil ? client.authentication.outsideFlowToken : client.authentication
            try authentication.apply(
                clientID: client.id, tokenEndpoint: url, now: configuration.now(), form: &form, headers: &headers,
                attested: attested)
            let received = try await session.send("POST", url, body: .form(form), headers: headers)
            answer = received
            // RFC 6749 §5.1: the tokens.
            if received.status == 200,
                let tokens = try? JSONDecoder().decode(SuccessfulTokenResponse.self, from: received.data)
            {
                configuration.logger.info("the token endpoint issued tokens (\(parameters["grant_type"] ?? ""))")
                listener?.onSuccess(SuccessTokenHTTPURLResponseContent(tokens, answer: received, url: url))
                return .successfulToken(tokens)
            }
            // RFC 6749 §5.2: the refusal.
            if let error = try? JSONDecoder().decode(OAuthErrorAnswer.self, from: received.data) {
                configuration.logger.info("the token endpoint refused: \(error.error)")
                let refusal = ErrorTokenResponse(error, status: received.status)
                listener?.onTokenError(ErrorTokenHTTPURLResponseContent(refusal, answer: received, url: url))
                return .errorToken(refusal)
            }
            throw ZSMError(.serverError, "the token endpoint's answer does not read", httpStatus: received.status)
        } catch {
            listener?.onError(ErrorHTTPURLResponseContent(error, answer: answer, url: url))
            return .error(error)
        }
    }
}
