import Hummingbird
import Logging
import UMFATokens

extension ProtectedResource.Presented {
    /// What `request` presents: its header fields and its method.
    init(_ request: Request) {
        self.init(
            authorization: request.headers[.authorization], dpopProofs: request.headers[values: .dpop],
            method: request.method.rawValue)
    }

    /// What `request` presents, with the client certificate of its connection or trusted proxy
    /// (RFC 8705 §3), which a certificate-bound token needs.
    init(_ request: Request, context: UMFARequestContext) {
        self.init(
            authorization: request.headers[.authorization], dpopProofs: request.headers[values: .dpop],
            method: request.method.rawValue, clientCertificate: context.clientCertificate,
            clientAddress: context.clientAddress,
            // Settled only when a refused token is traced, so it is the one the answer carries.
            traceID: { context.trace.value ?? TraceID.from(request, context: context) })
    }
}

extension ProtectedResource {
    /// 401 with the challenge of RFC 6750 §3 or RFC 9449 §7.1 (with the algorithms a proof may
    /// use); without an error code when no token was sent; a `DPoP-Nonce` when one is needed.
    static func challenge(_ refusal: Refusal, traceID: String, logger: Logger) -> Response {
        let error =
            refusal.error
            ?? OAuthError(
                code: .invalidToken, "Send the access token: Authorization: \(refusal.scheme.rawValue) <token>")
        var response = ErrorMap.oauthResponse(for: error, traceID: traceID, logger: logger)
        response.status = .unauthorized
        var challenge = #"\#(refusal.scheme.rawValue) realm="umfa""#
        if let code = refusal.error?.code { challenge += #", error="\#(code.rawValue)""# }
        if refusal.scheme == .dpop { challenge += #", algs="\#(DPoPProof.algorithms.joined(separator: " "))""# }
        response.headers[.wwwAuthenticate] = challenge
        return response
    }
}
