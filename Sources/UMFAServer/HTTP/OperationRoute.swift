import Hummingbird
import UMFAContract
import UMFAStorage

/// The handler shapes of one declared operation, with what its declaration says applied: the
/// success status, and the access check that comes before the body is judged (an API-key or
/// device-proof route refuses a caller without one first, so such a caller learns nothing about
/// the route). Debug builds check that the handler's body type is the declared one.
struct OperationRoute {
    let declaration: OperationDeclaration

    init(_ operation: APIOperation) { declaration = operation.declaration }

    /// The declared success status.
    var status: HTTPResponse.Status { HTTPResponse.Status(code: declaration.successStatus) }

    /// The check of the caller the declared access needs before the body is judged.
    var precheck: (@Sendable (Caller) throws -> Void)? {
        switch declaration.access {
        case .apiKey: APIKeyAuthentication.requireKey
        case .deviceProof: PendingApprovalRoutes.requireProof
        case .open, .adminToken, .loginToken, .oauthClient, .flowToken: nil
        }
    }

    /// A JSON body in, a JSON answer out.
    func json<Body: ContractBody, Answer: Encodable & Sendable>(
        _ call: @escaping @Sendable (Body, Caller) async throws -> Answer
    ) -> RouteHandler {
        jsonWithPath { body, _, caller in try await call(body, caller) }
    }

    /// A JSON body and path values in, a JSON answer out.
    func jsonWithPath<Body: ContractBody, Answer: Encodable & Sendable>(
        _ call: @escaping @Sendable (Body, RequestValues, Caller) async throws -> Answer
    ) -> RouteHandler {
        assert(
            declaration.requestBody.map(ObjectIdentifier.init) == ObjectIdentifier(Body.self),
            "\(declaration.path): handler body is not the declared one")
        return RouteHandlers.jsonWithPath(status: status, precheck: precheck, call)
    }

    /// No body in (path and query values), a JSON answer out.
    func plain<Answer: Encodable & Sendable>(
        _ call: @escaping @Sendable (RequestValues, Caller) async throws -> Answer
    ) -> RouteHandler {
        RouteHandlers.plain(status: status, precheck: precheck, call)
    }

    /// No body in (path and query values), none out: the declared status (204) once `call`
    /// has succeeded.
    func empty(_ call: @escaping @Sendable (RequestValues, Caller) async throws -> Void) -> RouteHandler {
        { [status, precheck] request, context in
            let caller = context.caller(request, traceID: TraceID.from(request, context: context))
            try precheck?(caller)
            try await call(RequestValues(request: request, context: context), caller)
            return Response(status: status, headers: [.cacheControl: "no-store"])
        }
    }

    /// A route under an issuer (``IssuerResolution``), a JSON body in, a JSON answer out, never cached.
    func issuerJSON<Body: ContractBody, Answer: Encodable & Sendable>(
        _ call: @escaping @Sendable (Body, OAuthIssuer, Caller) async throws -> Answer
    ) -> RouteHandler {
        issuerJSON(checking: { _, _ in () }, { body, _, issuer, caller in try await call(body, issuer, caller) })
    }

    /// ``issuerJSON(_:)`` for the person signed in by a fresh login token of the issuer's
    /// application, checked before the body is judged (401 otherwise, docs/contract.md §8).
    func signedInJSON<Body: ContractBody, Answer: Encodable & Sendable>(
        loginTokens: LoginTokens, applications: any ApplicationStore,
        _ call: @escaping @Sendable (Body, SignedInUser, OAuthIssuer, Caller) async throws -> Answer
    ) -> RouteHandler {
        issuerJSON(
            checking: { issuer, caller in
                let user = try await SignedInUser.from(caller, loginTokens: loginTokens, applications: applications)
                guard user.application.id == issuer.application.id else {
                    throw ServiceError.unauthenticated("The login token is for another application; sign in here")
                }
                return user
            }, call)
    }

    /// A JSON route under an issuer whose caller `checking` judges before the body is decoded.
    private func issuerJSON<Body: ContractBody, Checked: Sendable, Answer: Encodable & Sendable>(
        checking: @escaping @Sendable (OAuthIssuer, Caller) async throws -> Checked,
        _ call: @escaping @Sendable (Body, Checked, OAuthIssuer, Caller) async throws -> Answer
    ) -> RouteHandler {
        assert(
            declaration.requestBody.map(ObjectIdentifier.init) == ObjectIdentifier(Body.self),
            "\(declaration.path): handler body is not the declared one")
        return { [status] request, context in
            let input = try await JSONExchange.read(Body.self, request, context: context)
            let caller = context.caller(request, traceID: input.traceID)
            let issuer = try context.resolvedIssuer()
            let checked = try await checking(issuer, caller)
            var response = try JSONExchange.response(
                try await call(try input.decode(), checked, issuer, caller), status: status)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// A route under an issuer (``IssuerResolution``), no body in, a JSON answer out.
    func issuer<Answer: Encodable & Sendable>(
        _ call: @escaping @Sendable (OAuthIssuer, RequestValues, Caller) async throws -> Answer
    ) -> RouteHandler {
        { request, context in
            let caller = context.caller(request, traceID: TraceID.from(request, context: context))
            let answer = try await call(
                try context.resolvedIssuer(), RequestValues(request: request, context: context), caller)
            return try JSONExchange.response(answer, status: status)
        }
    }
}
