import Foundation

/// The JSON payload of an MDS3 metadata BLOB (FIDO Metadata Service v3.0 §3.1.6), decoded
/// leniently: only the members UMFA uses are read and unknown ones are ignored.
struct MetadataBLOBPayload: Decodable {
    struct Entry: Decodable {
        var aaguid: String?
        var metadataStatement: Statement?
        var statusReports: [Report]?
    }

    struct Statement: Decodable {
        var description: String?
        var attestationRootCertificates: [String]?
    }

    struct Report: Decodable {
        var status: String
        var effectiveDate: String?
    }

    /// `no`: the BLOB's serial number.
    var no: Int
    /// `nextUpdate`: when the operator should fetch a newer BLOB.
    var nextUpdate: String
    /// `entries`.
    var entries: [Entry]
}
