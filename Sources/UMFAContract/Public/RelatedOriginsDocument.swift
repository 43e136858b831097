/// `GET /.well-known/webauthn`: the origins that may use an RP ID besides its own (WebAuthn L3
/// §5.11, Related Origin Requests), `{"origins": [...]}`. It is the document a browser fetches
/// from the RP ID's host, so it follows the specification's shape, without a `trace_id`.
public struct RelatedOriginsDocument: ContractBody, Equatable {
    /// The related origins, each a web origin such as `https://shop.example.co.uk`.
    public var origins: [String]

    /// Creates a document.
    public init(origins: [String]) {
        self.origins = origins
    }

    /// An example with every member.
    public static let example = RelatedOriginsDocument(origins: ["https://shop.example.co.uk"])

    enum CodingKeys: String, CodingKey {
        case origins
    }
}

// MARK: - openapi.yaml

extension RelatedOriginsDocument: DocumentedFields {
    static let schemaDescription: String? = "The related origins of an RP ID (WebAuthn L3 §5.11)"

    static func describe(_ field: CodingKeys) -> FieldDoc {
        switch field {
        case .origins: FieldDoc("Web origins, such as https://shop.example.co.uk")
        }
    }
}
