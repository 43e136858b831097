import Foundation
import Testing
import UMFAContract
import Yams

/// Keeps `openapi.yaml`, which the contract generates (``ContractDocument``), true to the
/// contract and to the committed file: every operation of ``APIOperation`` is in the document
/// under its method, path and operation id, every request and success body has exactly the
/// fields (and the required fields) of its Swift type, nested objects included, and every
/// reference resolves.
@Suite("Contract: openapi.yaml and UMFAContract")
struct ContractTests {
    /// The generated document, parsed once. `nonisolated(unsafe)`: a `[String: Any]` is not
    /// `Sendable`, but this one is never written after it is built.
    nonisolated(unsafe) static let document: [String: Any] =
        (try? Yams.load(yaml: ContractDocument.yaml) as? [String: Any]) ?? [:]

    /// `Sources/UMFAContract/OpenAPI/openapi.yaml`, as committed.
    static let committedFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/UMFAContract/OpenAPI/openapi.yaml")

    @Test("the document parses as OpenAPI 3.1")
    func parses() {
        #expect(Self.document["openapi"] as? String == "3.1.0")
        #expect((Self.document["paths"] as? [String: Any])?.isEmpty == false)
    }

    @Test("the committed openapi.yaml is the generator's output (scripts/gen-docs.sh rewrites it)")
    func committedFileIsCurrent() throws {
        let committed = try String(contentsOf: Self.committedFile, encoding: .utf8)
        #expect(committed == ContractDocument.yaml, "stale: run scripts/gen-docs.sh")
    }

    @Test("the generator writes the same document every time")
    func deterministic() {
        #expect(ContractDocument.generate() == ContractDocument.yaml)
    }

    @Test("every $ref of the document resolves")
    func referencesResolve() {
        var unresolved: [String] = []
        func visit(_ node: Any) {
            if let object = node as? [String: Any] {
                if let reference = object["$ref"] as? String, Self.resolve(reference) == nil {
                    unresolved.append(reference)
                }
                object.values.forEach(visit)
            } else if let array = node as? [Any] {
                array.forEach(visit)
            }
        }
        visit(Self.document)
        #expect(unresolved.isEmpty, "unresolved: \(Set(unresolved).sorted())")
    }

    @Test("every path parameter of an operation is a {name} segment of its path, and every segment has one")
    func pathParameters() throws {
        for operation in APIOperation.allCases {
            let spec = try #require(Self.operation(operation))
            let parameters = (spec["parameters"] as? [Any] ?? []).compactMap { parameter -> [String: Any]? in
                let object = parameter as? [String: Any] ?? [:]
                return (object["$ref"] as? String).flatMap(Self.resolve) as? [String: Any] ?? object
            }
            let documented = Set(
                parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
            let segments = Set(
                operation.path.split(separator: "/").filter { $0.hasPrefix("{") }.map {
                    String($0.dropFirst().dropLast())
                })
            #expect(documented == segments, "\(operation)")
        }
    }

    @Test("the operations of the document are exactly APIOperation's, with their operation ids")
    func operations() {
        let paths = Self.document["paths"] as? [String: Any] ?? [:]
        var documented: [String: String] = [:]
        for (path, item) in paths {
            for (method, operation) in item as? [String: Any] ?? [:] {
                let id = (operation as? [String: Any])?["operationId"] as? String ?? "(none)"
                documented["\(method.uppercased()) \(path)"] = id
            }
        }
        let table = Dictionary(
            uniqueKeysWithValues: APIOperation.allCases.map { ("\($0.method) \($0.path)", $0.rawValue) })
        #expect(documented == table)
    }

    @Test("the Error schema is ErrorResponse")
    func errorSchema() throws {
        let schemas = (Self.document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let schema = try #require(schemas?["Error"] as? [String: Any])
        for problem in SchemaComparison.compare(ErrorResponse.self, schema: schema, document: Self.document) {
            Issue.record("Error: \(problem)")
        }
    }

    @Test("request bodies have the fields and required fields of their types", arguments: APIOperation.allCases)
    func requestBody(_ operation: APIOperation) throws {
        let spec = try #require(Self.operation(operation))
        let body = (spec["requestBody"] as? [String: Any]).flatMap(Self.jsonSchema)
        guard let type = operation.requestBody else {
            #expect(body == nil, "\(operation) has no request type but the document gives it a body")
            return
        }
        let schema = try #require(body, "\(operation) has no application/json request schema in the document")
        for problem in SchemaComparison.compare(type, schema: schema, document: Self.document) {
            Issue.record("\(operation) request: \(problem)")
        }
    }

    @Test("success answers have the fields and required fields of their types", arguments: APIOperation.allCases)
    func responseBody(_ operation: APIOperation) throws {
        let spec = try #require(Self.operation(operation))
        let responses = try #require(spec["responses"] as? [String: Any])
        let success = try #require(
            responses[String(operation.successStatus)] as? [String: Any],
            "\(operation) documents no \(operation.successStatus) answer")
        guard let type = operation.responseBody else { return }
        let schema = try #require(Self.jsonSchema(success), "\(operation) has no application/json answer schema")
        for problem in SchemaComparison.compare(type, schema: schema, document: Self.document) {
            Issue.record("\(operation) answer: \(problem)")
        }
    }

    @Test("every JSON answer carries trace_id (docs/contract.md §2), as its type and the document say")
    func answersCarryTraceID() throws {
        // OAuth and OpenID Connect answers follow their RFCs' shapes (their errors carry trace_id).
        for operation in APIOperation.allCases where !operation.answersInOAuthShape {
            guard let type = operation.responseBody else { continue }
            #expect(type is any TraceCarrying.Type, "\(operation): \(type) has no trace id")
            let data = try JSONEncoder().encode(AnyEncodable(example: type))
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(object?["trace_id"] is String, "\(operation): the example answer has no trace_id")
        }
    }

    @Test("the comparison notices a renamed, a missing and an extra field")
    func comparisonIsStrict() {
        let schema: [String: Any] = [
            "type": "object", "required": ["trace_id", "user_id"],
            "properties": ["trace_id": ["type": "string"], "user": ["type": "string"]],
        ]
        let problems = SchemaComparison.compare(ValidateTokenResponse.self, schema: schema, document: [:])
        #expect(problems.contains { $0.contains("user_id") && $0.contains("not in the document") })
        #expect(problems.contains { $0.contains("user") && $0.contains("not in the type") })
        let optional: [String: Any] = [
            "type": "object", "required": ["application_id", "user_id", "token", "trace_id"],
            "properties": [
                "application_id": [:], "user_id": [:], "token": [:], "token_type": [:], "trace_id": [:],
            ],
        ]
        let requiredProblems = SchemaComparison.compare(ValidateTokenRequest.self, schema: optional, document: [:])
        #expect(
            requiredProblems == [
                "required fields differ at (top): type [application_id, token, user_id], document [application_id, token, trace_id, user_id]"
            ])
    }

    /// The node a local reference (`#/components/...`) names, or `nil`.
    static func resolve(_ reference: String) -> Any? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: Any? = document
        for part in reference.dropFirst(2).split(separator: "/") {
            node = (node as? [String: Any])?[String(part)]
        }
        return node
    }

    static func operation(_ operation: APIOperation) -> [String: Any]? {
        let paths = document["paths"] as? [String: Any]
        return (paths?[operation.path] as? [String: Any])?[operation.method.lowercased()] as? [String: Any]
    }

    static func jsonSchema(_ holder: [String: Any]) -> [String: Any]? {
        let content = holder["content"] as? [String: Any]
        return (content?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
    }
}

/// A contract type's example, to encode without knowing its type statically.
private struct AnyEncodable: Encodable {
    let encodeExample: (any Encoder) throws -> Void

    init(example type: any ContractBody.Type) {
        encodeExample = { encoder in try type.example.encode(to: encoder) }
    }

    func encode(to encoder: any Encoder) throws { try encodeExample(encoder) }
}
