/// What `openapi.yaml` says about one member of a contract type beyond what its encoded example
/// shows: its description and constraints (docs/contract.md §2). The member's wire name is not
/// repeated here: a type documents its members by its `CodingKeys` cases (``DocumentedFields``).
struct FieldDoc: Sendable {
    /// How the member's schema is made.
    enum Form: Sendable {
        /// From the example's JSON type, with these schema members added (or replacing the
        /// derived `type`, `items` or `properties`).
        case derived([(String, YAMLNode)])
        /// A reference to a schema of `components/schemas`, made from a Swift type or written
        /// out in ``SharedSchemas``.
        case reference(SchemaReference)
        /// A schema written out in full, where the example's shape says too little (open
        /// WebAuthn objects, maps keyed by credential id).
        case written(YAMLNode)
    }

    let form: Form

    /// A member whose schema follows from the example, with a description and constraints
    /// (`format`, `enum`, `minLength`, …; see ``Facet``).
    init(_ description: String? = nil, _ facets: Facet...) {
        var members: [(String, YAMLNode)] = []
        if let description { members.append(("description", .string(description))) }
        members += facets.map(\.member)
        form = .derived(members)
    }

    private init(form: Form) { self.form = form }

    /// A member described by the named schema of a Swift type (for an array, its items).
    static func ref(_ type: Any.Type, _ description: String? = nil, _ facets: Facet...) -> FieldDoc {
        FieldDoc(form: .reference(SchemaReference(type: type, description: description, facets: facets)))
    }

    /// A member described by a schema written out in ``SharedSchemas`` (for an array, its items).
    static func ref(_ shared: SharedSchemas, _ description: String? = nil, _ facets: Facet...) -> FieldDoc {
        FieldDoc(form: .reference(SchemaReference(name: shared.rawValue, description: description, facets: facets)))
    }

    /// A member described by a named schema made from the example alone, for a type that does
    /// not document itself (yet).
    static func ref(named name: String, _ description: String? = nil, _ facets: Facet...) -> FieldDoc {
        FieldDoc(
            form: .reference(
                SchemaReference(name: name, description: description, facets: facets, derived: true)))
    }

    /// A member whose schema is written out in full.
    static func written(_ schema: YAMLNode) -> FieldDoc { FieldDoc(form: .written(schema)) }

    /// No description: the schema follows from the example alone.
    static let plain = FieldDoc()
}

/// A reference to a named schema: a Swift type's (its ``DocumentedSchema/schemaName``) or a
/// schema written out in ``SharedSchemas``.
struct SchemaReference: @unchecked Sendable {
    /// The type the schema is made from, or `nil` for a written-out schema.
    let type: Any.Type?
    /// The schema's name under `components/schemas`.
    let name: String
    /// A description beside the reference, for what the member means in its place.
    let description: String?
    /// Constraints beside the reference (for an array, `maxItems`).
    let facets: [(String, YAMLNode)]
    /// Whether the schema is made from the example although no type documents it.
    let derived: Bool

    init(type: Any.Type, description: String?, facets: [Facet]) {
        self.type = type
        self.name = (type as? any DocumentedSchema.Type)?.schemaName ?? String(describing: type)
        self.description = description
        self.facets = facets.map(\.member)
        self.derived = true
    }

    init(name: String, description: String?, facets: [Facet], derived: Bool = false) {
        self.type = nil
        self.name = name
        self.description = description
        self.facets = facets.map(\.member)
        self.derived = derived
    }
}

/// A schema constraint or annotation (JSON Schema Validation, OpenAPI 3.1 §4.8.24).
enum Facet: Sendable {
    case format(String)
    case enumeration([String])
    case minimum(Int)
    case maximum(Int)
    case minLength(Int)
    case maxLength(Int)
    case minItems(Int)
    case maxItems(Int)
    case defaultValue(YAMLNode)
    case constant(YAMLNode)
    /// Replaces the derived `type`.
    case type(YAMLNode)
    /// A member that may be `null`: `type: [<type>, "null"]`.
    case nullable(String)
    /// Replaces the derived `items`.
    case items(YAMLNode)
    /// Any other schema member, written out.
    case member(String, YAMLNode)

    var member: (String, YAMLNode) {
        switch self {
        case .format(let value): ("format", .string(value))
        case .enumeration(let values): ("enum", .list(values.map(YAMLNode.string)))
        case .minimum(let value): ("minimum", .integer(value))
        case .maximum(let value): ("maximum", .integer(value))
        case .minLength(let value): ("minLength", .integer(value))
        case .maxLength(let value): ("maxLength", .integer(value))
        case .minItems(let value): ("minItems", .integer(value))
        case .maxItems(let value): ("maxItems", .integer(value))
        case .defaultValue(let value): ("default", value)
        case .constant(let value): ("const", value)
        case .type(let value): ("type", value)
        case .nullable(let type): ("type", .list([.string(type), .string("null")]))
        case .items(let value): ("items", value)
        case .member(let key, let value): (key, value)
        }
    }
}

/// A type that `openapi.yaml` describes under a name of its own. Every member has a default, so
/// a type without prose still appears, its schema made from its example alone.
protocol DocumentedSchema {
    /// The name under `components/schemas`; the Swift type's name unless it says otherwise.
    static var schemaName: String { get }
    /// What the type is, for the schema's `description`.
    static var schemaDescription: String? { get }
    /// What the document says about the member with this wire name, or `nil`.
    static func documentation(forMember name: String) -> FieldDoc?
    /// Types whose members this type's JSON object holds as its own (a flat object that
    /// encodes another type beside its own members).
    static var membersAlsoFrom: [any DocumentedSchema.Type] { get }
}

extension DocumentedSchema {
    static var schemaName: String { String(describing: Self.self) }
    static var schemaDescription: String? { nil }
    static func documentation(forMember name: String) -> FieldDoc? { nil }
    static var membersAlsoFrom: [any DocumentedSchema.Type] { [] }
}

/// A type that documents each member by its `CodingKeys` case, so the wire name is written only
/// in the case's raw value and an exhaustive switch lists every member once.
protocol DocumentedFields: DocumentedSchema {
    associatedtype Field: CodingKey
    /// What the document says about a member.
    static func describe(_ field: Field) -> FieldDoc
}

extension DocumentedFields {
    static func documentation(forMember name: String) -> FieldDoc? {
        Field(stringValue: name).map(describe)
            ?? membersAlsoFrom.lazy.compactMap { $0.documentation(forMember: name) }.first
    }
}
