import Foundation

/// Writes `openapi.yaml` from the contract: the operations from ``APIOperation/declaration`` and
/// ``APIOperation/documentation``, the schemas from each contract type's example (members and
/// their JSON types), its decoder (a member is required when the example without it does not
/// decode) and its ``DocumentedSchema`` prose. The output is the same for the same code.
package enum ContractDocument {
    /// The document, as the server serves it at `GET /openapi.yaml` and the repository holds it
    /// in `Sources/UMFAContract/OpenAPI/openapi.yaml`.
    package static let yaml: String = generate()

    /// Writes the document anew (``yaml`` keeps the first).
    package static func generate() -> String {
        var generator = OpenAPIGenerator()
        return generator.document().text
    }
}

struct OpenAPIGenerator {
    /// The schemas made so far, in the order they were first reached.
    private var schemas: [(String, YAMLNode)] = []
    private var named: Set<String> = []

    mutating func document() -> YAMLNode {
        let paths = pathItems()
        for root in OpenAPIInfo.schemaRoots { _ = component(for: root) }
        let shared = SharedSchemas.allCases.map { ($0.rawValue, $0.schema) }
        let parameters = ParameterComponent.allCases.map { ($0.rawValue, $0.definition) }
        return [
            "openapi": "3.1.0",
            "info": OpenAPIInfo.info,
            "tags": .list(
                OperationTag.allCases.map { ["name": .string($0.rawValue), "description": .string($0.description)] }),
            "components": [
                "securitySchemes": OpenAPIInfo.securitySchemes,
                "schemas": .map(shared + schemas),
                "parameters": .map(parameters),
                "responses": OpenAPIInfo.responses,
            ],
            "paths": .map(paths),
        ]
    }

    // MARK: Operations

    private mutating func pathItems() -> [(String, YAMLNode)] {
        var order: [String] = []
        var items: [String: [(String, YAMLNode)]] = [:]
        for operation in APIOperation.allCases {
            if items[operation.path] == nil { order.append(operation.path) }
            items[operation.path, default: []].append((operation.method.lowercased(), self.operation(operation)))
        }
        return order.map { ($0, .map(items[$0] ?? [])) }
    }

    private mutating func operation(_ operation: APIOperation) -> YAMLNode {
        let doc = operation.documentation
        var members: [(String, YAMLNode)] = [
            ("operationId", .string(operation.rawValue)), ("tags", [.string(OperationTag(operation).rawValue)]),
            ("summary", .string(doc.summary)),
        ]
        if let description = doc.description { members.append(("description", .string(description))) }
        if let security = doc.security ?? Self.security(for: operation.access) {
            members.append(("security", security))
        }
        let parameters = (doc.pathParameters ?? Self.pathParameters(operation.path)) + doc.parameters
        if !parameters.isEmpty {
            members.append(
                (
                    "parameters",
                    .list(
                        parameters.map { parameter in
                            switch parameter {
                            case .shared(let component):
                                ["$ref": .string("#/components/parameters/" + component.rawValue)]
                            case .written(let node): node
                            }
                        })
                ))
        }
        if let body = operation.requestBody {
            let name = component(for: body)
            var requestBody: YAMLNode = ["required": true, "content": ["application/json": ["schema": Self.ref(name)]]]
            // Written members add to it: other media types of the same body, `required: false`.
            for (key, value) in doc.requestBody?.members ?? [] {
                if key == "content", let content = requestBody["content"] {
                    requestBody = requestBody.setting(key, .map(content.members + value.members))
                } else {
                    requestBody = requestBody.setting(key, value)
                }
            }
            members.append(("requestBody", requestBody))
        } else if let body = doc.requestBody {
            members.append(("requestBody", body))
        }
        var responses: [(String, YAMLNode)] = [(String(operation.successStatus), successAnswer(operation, doc))]
        let written = Dictionary(doc.writtenAnswers, uniquingKeysWith: { first, _ in first })
        for status in doc.statuses {
            let answer =
                written[status] ?? [
                    "$ref": .string("#/components/responses/" + Self.errorResponse(status, operation.errorShape))
                ]
            responses.append((String(status), answer))
        }
        members.append(("responses", .map(responses)))
        return .map(members)
    }

    private mutating func successAnswer(_ operation: APIOperation, _ doc: OperationDoc) -> YAMLNode {
        if let shared = doc.successAnswer, shared["$ref"] != nil { return shared }
        var answer: YAMLNode = ["description": .string(doc.success ?? "")]
        if let type = operation.responseBody {
            let name = component(for: type)
            var media: YAMLNode = ["schema": Self.ref(name)]
            if let example = try? ExampleJSON(encoding: AnyExample(type)) {
                media = media.setting("example", example.node)
            }
            answer = answer.setting("content", ["application/json": media])
        }
        for (key, value) in doc.successAnswer?.members ?? [] { answer = answer.setting(key, value) }
        return answer
    }

    /// The security requirement the declared access implies; `nil` for an open operation.
    static func security(for access: APIOperation.Access) -> YAMLNode? {
        switch access {
        case .open: nil
        case .apiKey: [["apiKey": []]]
        case .adminToken: [["adminToken": []]]
        case .loginToken: [["loginToken": []]]
        case .oauthClient: [["oauthClient": []], [:]]
        case .deviceProof: [["deviceProof": []]]
        case .flowToken: [["flowToken": []]]
        }
    }

    /// The shared response an error status refers to in an error shape (docs/contract.md §2).
    static func errorResponse(_ status: Int, _ shape: APIOperation.ErrorShape) -> String {
        switch shape {
        case .umfa, .page: status == 429 ? "RateLimited" : status == 503 ? "Unavailable" : "Error"
        case .oauth: "OAuthError"
        // A refused flow token is an RFC 6750 challenge, as at every protected resource.
        case .problem: status == 401 ? "OAuthError" : "FlowProblem"
        }
    }

    /// The path's `{name}` segments, each as its shared parameter.
    static func pathParameters(_ path: String) -> [Parameter] {
        path.split(separator: "/").compactMap { segment in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return nil }
            return ParameterComponent.forPath(String(segment.dropFirst().dropLast())).map(Parameter.shared)
        }
    }

    static func ref(_ name: String) -> YAMLNode { ["$ref": .string("#/components/schemas/" + name)] }

    // MARK: Schemas

    /// Makes the schema of a contract type from its own example, once; returns its name.
    mutating func component(for type: any ContractBody.Type) -> String {
        func open<T: ContractBody>(_ type: T.Type) -> String {
            let name = (T.self as? any DocumentedSchema.Type)?.schemaName ?? String(describing: T.self)
            guard !named.contains(name) else { return name }
            named.insert(name)
            guard let example = try? ExampleJSON(encoding: T.example) else { return name }
            let walk = Walk(root: example) { value in
                guard let data = try? JSONEncoder().encode(value) else { return false }
                return (try? JSONDecoder().decode(T.self, from: data)) != nil
            }
            let schema = namedSchema(example, at: [], docs: T.self as? any DocumentedSchema.Type, walk)
            schemas.append((name, schema))
            return name
        }
        return open(type)
    }

    /// The example of one contract body and the test that a changed example still decodes.
    struct Walk {
        let root: ExampleJSON
        let decodes: (ExampleJSON) -> Bool
    }

    private mutating func namedSchema(
        _ value: ExampleJSON, at path: [String], docs: (any DocumentedSchema.Type)?, _ walk: Walk
    ) -> YAMLNode {
        var schema: YAMLNode
        if case .object = value {
            schema = objectSchema(value, at: path, docs: docs, walk)
        } else {
            schema = ["type": .string(value.schemaType)]
        }
        if let description = docs?.schemaDescription {
            schema = .map([schema.members[0], ("description", .string(description))] + schema.members.dropFirst())
        }
        return schema
    }

    private mutating func objectSchema(
        _ value: ExampleJSON, at path: [String], docs: (any DocumentedSchema.Type)?, _ walk: Walk
    ) -> YAMLNode {
        guard case .object(let members) = value else { return ["type": .string(value.schemaType)] }
        let keys = members.keys.sorted()
        let required = keys.filter { !walk.decodes(walk.root.removing($0, at: path[...])) }
        var properties: [(String, YAMLNode)] = []
        for key in keys {
            guard let member = members[key] else { continue }
            properties.append((key, property(member, at: path + [key], doc: docs?.documentation(forMember: key), walk)))
        }
        var schema: [(String, YAMLNode)] = [("type", "object")]
        if !required.isEmpty { schema.append(("required", .list(required.map(YAMLNode.string)))) }
        schema.append(("properties", .map(properties)))
        return .map(schema)
    }

    private mutating func property(_ value: ExampleJSON, at path: [String], doc: FieldDoc?, _ walk: Walk) -> YAMLNode {
        switch doc?.form ?? .derived([]) {
        case .written(let schema):
            return schema
        case .reference(let reference):
            var target = value
            var targetPath = path
            // A shared schema that is itself an array (CredentialHints) describes the member whole.
            let wholeArray = SharedSchemas(rawValue: reference.name)?.schema["type"] == "array"
            if case .array(let items) = value, let first = items.first, !wholeArray {
                target = first
                targetPath.append("0")
            }
            makeComponent(reference, value: target, at: targetPath, walk)
            var schema: YAMLNode
            if case .array = value, !wholeArray {
                schema = ["type": "array"]
                if let description = reference.description {
                    schema = schema.setting("description", .string(description))
                }
                for (key, node) in reference.facets { schema = schema.setting(key, node) }
                schema = schema.setting("items", Self.ref(reference.name))
            } else {
                schema = Self.ref(reference.name)
                if let description = reference.description {
                    schema = schema.setting("description", .string(description))
                }
                for (key, node) in reference.facets { schema = schema.setting(key, node) }
            }
            return schema
        case .derived(let facets):
            var schema: YAMLNode = ["type": .string(value.schemaType)]
            if case .null = value { schema = [:] }
            for (key, node) in facets { schema = schema.setting(key, node) }
            switch value {
            case .array(let items) where schema["items"] == nil:
                if let first = items.first {
                    let itemSchema: YAMLNode =
                        if case .object = first { objectSchema(first, at: path + ["0"], docs: nil, walk) } else {
                            ["type": .string(first.schemaType)]
                        }
                    schema = schema.setting("items", itemSchema)
                }
            case .object where schema["properties"] == nil && schema["additionalProperties"] == nil:
                let derived = objectSchema(value, at: path, docs: nil, walk)
                for (key, node) in derived.members where key != "type" { schema = schema.setting(key, node) }
            default: break
            }
            return schema
        }
    }

    private mutating func makeComponent(
        _ reference: SchemaReference, value: ExampleJSON, at path: [String], _ walk: Walk
    ) {
        guard reference.derived else { return }
        if let body = reference.type as? any ContractBody.Type {
            _ = component(for: body)
            return
        }
        guard !named.contains(reference.name) else { return }
        named.insert(reference.name)
        let docs = reference.type as? any DocumentedSchema.Type
        schemas.append((reference.name, namedSchema(value, at: path, docs: docs, walk)))
    }
}

/// A contract type's example, to encode without knowing its type statically.
struct AnyExample: Encodable {
    let encodeExample: (any Encoder) throws -> Void

    init(_ type: any ContractBody.Type) {
        encodeExample = { encoder in try type.example.encode(to: encoder) }
    }

    func encode(to encoder: any Encoder) throws { try encodeExample(encoder) }
}
