import Foundation
import Hummingbird
import UMFAContract
import UMFAEncoding

/// A route handler on UMFA's context.
typealias RouteHandler = @Sendable (Request, UMFARequestContext) async throws -> Response

/// The three shapes every route takes: decode, call, encode. Routes hold no logic of their own.
enum RouteHandlers {
    /// A route with a JSON body: the body is read (413, 408) unless middleware read it already,
    /// its trace id settled, `precheck` run (an API-key route refuses a caller without a key
    /// before judging the body), the body decoded as `Body` (400 naming the field), `call` run
    /// and its answer encoded.
    static func json<Body: ContractBody, Answer: Encodable & Sendable>(
        status: HTTPResponse.Status = .ok, precheck: (@Sendable (Caller) throws -> Void)? = nil,
        _ call: @escaping @Sendable (Body, Caller) async throws -> Answer
    ) -> RouteHandler {
        jsonWithPath(status: status, precheck: precheck) { body, _, caller in try await call(body, caller) }
    }

    /// A route with a JSON body and path values (`PATCH /api/admin/applications/{id}`).
    static func jsonWithPath<Body: ContractBody, Answer: Encodable & Sendable>(
        status: HTTPResponse.Status = .ok, precheck: (@Sendable (Caller) throws -> Void)? = nil,
        _ call: @escaping @Sendable (Body, RequestValues, Caller) async throws -> Answer
    ) -> RouteHandler {
        { request, context in
            let input = try await JSONExchange.read(Body.self, request, context: context)
            let caller = context.caller(request, traceID: input.traceID)
            try precheck?(caller)
            let body = try input.decode()
            return try JSONExchange.response(
                try await call(body, RequestValues(request: request, context: context), caller), status: status)
        }
    }

    /// A route without a body: the trace id comes from the query; path and query values are
    /// handed over as ``RequestValues``.
    static func plain<Answer: Encodable & Sendable>(
        status: HTTPResponse.Status = .ok, precheck: (@Sendable (Caller) throws -> Void)? = nil,
        _ call: @escaping @Sendable (RequestValues, Caller) async throws -> Answer
    ) -> RouteHandler {
        { request, context in
            let caller = context.caller(request, traceID: TraceID.from(request, context: context))
            try precheck?(caller)
            return try JSONExchange.response(
                try await call(RequestValues(request: request, context: context), caller), status: status)
        }
    }
}

extension RequestValues {
    /// The values of `request`: its path parameters percent-decoded (absent when not valid
    /// percent-encoded UTF-8), its query parameters (the first of each name), and what it
    /// presents to a protected resource.
    init(request: Request, context: UMFARequestContext) {
        var path: [String: String] = [:]
        for (name, value) in context.parameters {
            path[String(name)] = PercentEncoding.decode(value, plusAsSpace: false)
        }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        self.init(
            pathValues: path, queryValues: query,
            presented: ProtectedResource.Presented(request, context: context), requestPath: request.uri.path)
    }
}
