import Foundation
import HTTPTypes
import Hummingbird
import UMFAContract
import UMFAEncoding

/// The HTTP side of the API-driven flow (docs/contract.md §6): every request carries the flow token as
/// `Authorization: DPoP <token>` with a proof of its key for the request's method and URL; the
/// answers are steps (`application/vnd.auth+json`) or problems (`application/problem+json`,
/// rendered by the route group's ``ErrorRendering``).
/// A refused flow token or proof is 401 with the `WWW-Authenticate: DPoP` challenge (and the
/// `DPoP-Nonce` to use), as at every protected resource.
struct APIFlowRoutes: Sendable {
    /// The OpenID provider whose issuers this edge serves.
    let provider: OpenIDProvider

    /// Whether an authorization request asks for the flow rather than the hosted pages.
    static func wantsFlow(_ request: Request) -> Bool {
        request.headers[values: .accept].contains { $0.lowercased().contains(FlowStep.mediaType) }
    }

    /// `GET <issuer>/authorize` with `Accept: application/vnd.auth+json`: the first step.
    func start(_ request: Request, context: UMFARequestContext, issuer: OAuthIssuer) async -> Response {
        let traceID = TraceID.from(request, context: context)
        do {
            let token: FlowToken
            do {
                token = try await FlowToken.check(
                    request, context: context, url: issuer.issuer + "/authorize", issuer: issuer, provider)
            } catch let refusal as ProtectedResource.Refusal {
                return ProtectedResource.challenge(refusal, traceID: traceID, logger: provider.logger)
            }
            let (client, authorization) = try await provider.engine(for: issuer).authorize
                .resolve(AuthorizeRoutes.query(of: request))
            guard client.clientID.utf8.elementsEqual(token.clientID.utf8) else {
                throw FlowProblem(.invalidInput, "The flow token was issued to another client")
            }
            var bound = authorization
            if let given = bound.dpopJKT, !given.utf8.elementsEqual(token.key.utf8) {
                throw OAuthError.invalidRequest("dpop_jkt names another key than the flow token's")
            }
            // RFC 9449 §10: the code is redeemed with the flow's key only.
            bound.dpopJKT = token.key
            let step = try await provider.engine(for: issuer).apiFlow(flowKey: token.key)
                .start(bound)
            return try Self.response(step)
        } catch {
            return ErrorMap.problemResponse(for: error, traceID: traceID, logger: provider.logger)
        }
    }

    /// A flow route: `suffix` is its path after `<issuer>/flow/<flow id>`; `readsBody`, whether
    /// it takes a form.
    func route(
        _ suffix: String, readsBody: Bool = true,
        _ call: @escaping @Sendable (APIFlowService, String, FlowSubmission, Caller) async throws -> FlowStep
    ) -> RouteHandler {
        { [provider] request, context in
            let traceID = TraceID.from(request, context: context)
            let issuer = try context.resolvedIssuer()
            let handle = context.parameters.get("flow_id") ?? ""
            let token = try await FlowToken.check(
                request, context: context, url: APIFlowService.base(issuer, handle) + suffix, issuer: issuer, provider)
            let form = readsBody ? try await Self.submission(request, context: context) : FlowSubmission()
            let step = try await call(
                provider.engine(for: issuer).apiFlow(flowKey: token.key), handle, form,
                context.caller(request, traceID: traceID))
            return try Self.response(step)
        }
    }

    /// A form as JSON (`credential` an object) or URL-encoded (`credential` JSON text).
    static func submission(_ request: Request, context: UMFARequestContext) async throws -> FlowSubmission {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        if mediaType == "application/x-www-form-urlencoded" {
            let buffer = try await JSONExchange.collect(request, timeout: context.bodyReadTimeout)
            let form = try OAuthForm(Data(buffer: buffer), contentType: request.headers[.contentType])
            var credential: JSONValue?
            if let text = form["credential"] {
                guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                    throw FlowProblem(
                        .invalidInput, "credential must be the passkey's response as JSON text",
                        invalidFields: [.init(name: "credential", reason: .invalidValue)])
                }
                credential = parsed
            }
            return FlowSubmission(
                username: form["username"], email: form["email"], givenName: form["given_name"],
                familyName: form["family_name"], phoneNumber: form["phone_number"], deviceName: form["device_name"],
                credential: credential, decision: form["decision"])
        }
        let body = try await JSONExchange.read(request, context: context)
        if body.data.isEmpty { return FlowSubmission() }
        return try body.decode(FlowSubmission.self)
    }

    /// A step, `application/vnd.auth+json`, never cached.
    static func response(_ step: FlowStep) throws -> Response {
        var response = try JSONExchange.response(step)
        response.headers[.contentType] = FlowStep.mediaType
        return response
    }
}

/// The flow token of a request (docs/contract.md §6): a valid access token of the issuer with scope
/// `urn:umfa:api-flow`, DPoP-bound, presented as `DPoP` with a proof of its key.
struct FlowToken: Sendable {
    /// The JWK thumbprint of its DPoP key, which the flow is bound to.
    let key: String
    /// The client it was issued to.
    let clientID: String

    /// - Throws: ``ProtectedResource/Refusal`` (401 with its challenge).
    static func check(
        _ request: Request, context: UMFARequestContext, url: String, issuer: OAuthIssuer, _ provider: OpenIDProvider
    ) async throws
        -> FlowToken
    {
        let claims: AccessTokenClaims
        do {
            claims = try await provider.engine(for: issuer).protectedResource(url: url)
                .claims(of: .init(request, context: context)) {
                    // A client's own token (client_credentials): a user's token that happens to
                    // carry the scope would pass by the client's attestation rule.
                    $0.authTime == nil
                        && $0.scope.split(separator: " ").contains(Substring(ClientAttestationCheck.apiFlowScope))
                }
        } catch let refusal as ProtectedResource.Refusal where refusal.error == nil {
            // No token at all: the challenge names the scheme the flow needs.
            throw ProtectedResource.Refusal(error: nil, scheme: .dpop)
        }
        guard let key = claims.cnf?.jkt else {
            throw ProtectedResource.Refusal(
                error: OAuthError(
                    code: .invalidToken, "The flow token must be DPoP-bound: get it with a DPoP proof"),
                scheme: .dpop)
        }
        return FlowToken(key: key, clientID: claims.clientID)
    }
}
