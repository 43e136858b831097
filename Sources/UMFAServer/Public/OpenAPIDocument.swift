/// `GET /openapi.yaml`: the HTTP API v1 as `Resources/openapi.yaml` holds it (embedded in the
/// binary), kept true by `ContractTests`, which compares it with ``APIOperation`` and the
/// contract types field by field.
enum OpenAPIDocument {
    /// The document's bytes.
    static let bytes: [UInt8] = PackageResources.openapi_yaml

    /// The document as text.
    static let yaml = String(decoding: bytes, as: UTF8.self)
}
