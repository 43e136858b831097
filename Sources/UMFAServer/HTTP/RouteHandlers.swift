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
        _ call: @escaping @Sendable (Body, RouteValues, Caller) async throws -> Answer
    ) -> RouteHandler {
        { request, context in
            let input = try await JSONExchange.read(Body.self, request, context: context)
            let caller = context.caller(request, traceID: input.traceID)
            try precheck?(caller)
            let body = try input.decode()
            return try JSONExchange.response(
                try await call(body, RouteValues(request: request, context: context), caller), status: status)
        }
    }

    /// A route without a body: the trace id comes from the query; path and query values are
    /// handed over as ``RouteValues``.
    static func plain<Answer: Encodable & Sendable>(
        status: HTTPResponse.Status = .ok, precheck: (@Sendable (Caller) throws -> Void)? = nil,
        _ call: @escaping @Sendable (RouteValues, Caller) async throws -> Answer
    ) -> RouteHandler {
        { request, context in
            let caller = context.caller(request, traceID: TraceID.from(request, context: context))
            try precheck?(caller)
            return try JSONExchange.response(
                try await call(RouteValues(request: request, context: context), caller), status: status)
        }
    }
}

/// Path parameters (percent-decoded; `nil` when absent or not valid percent-encoded UTF-8)
/// and query parameters of a request, read when asked for.
struct RouteValues: Sendable {
    private let parameters: Parameters
    private let request: Request
    private let clientCertificate: PresentedClientCertificate?
    private let clientAddress: String
    private let trace: TraceSlot

    init(request: Request, context: UMFARequestContext) {
        parameters = context.parameters
        self.request = request
        clientCertificate = context.clientCertificate
        clientAddress = context.clientAddress
        trace = context.trace
    }

    /// The decoded path parameter `name`.
    func path(_ name: String) -> String? {
        parameters.get(name).flatMap { PercentEncoding.decode(Substring($0), plusAsSpace: false) }
    }

    /// The query parameter `name`.
    func query(_ name: String) -> String? { request.uri.queryParameters.get(name) }

    /// The request's header fields and method, for an access token and its DPoP proof.
    var presented: ProtectedResource.Presented {
        let trace = trace
        return .init(
            headers: request.headers, method: request.method.rawValue, clientCertificate: clientCertificate,
            clientAddress: clientAddress, traceID: { trace.value ?? "-" })
    }

    /// The request's path, without the query (a DPoP proof's `htu`, RFC 9449 §4.3).
    var requestPath: String { request.uri.path }

    /// The values a credential route works on.
    var credentialTarget: CredentialService.Target {
        .init(applicationID: query("application_id"), userID: path("user_id"), credentialID: path("credential_id"))
    }
}
