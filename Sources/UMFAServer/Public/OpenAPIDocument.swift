import UMFAContract

/// `GET /openapi.yaml`: the HTTP API v1 as the contract generates it (``ContractDocument``, from
/// ``APIOperation``'s declarations and the contract types' examples), byte for byte the
/// `Sources/UMFAContract/OpenAPI/openapi.yaml` that scripts/gen-docs.sh writes and checks.
enum OpenAPIDocument {
    /// The document as text.
    static let yaml = ContractDocument.yaml

    /// The document's bytes.
    static let bytes: [UInt8] = Array(yaml.utf8)
}
