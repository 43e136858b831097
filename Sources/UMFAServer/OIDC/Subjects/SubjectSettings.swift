import Foundation
import UMFAContract
import UMFAStorage

extension OAuthClientSettings {
    /// The subject types of OpenID Connect Core §8, as `subject_type` names them.
    static let subjectTypes = ["public", "pairwise"]

    /// `subject_type` and `sector_identifier_uri` of `request` applied to `client` (an empty
    /// `sector_identifier_uri` removes it). The document the URI names is fetched and checked
    /// apart (``SectorIdentifierDocuments``): this is the part without the network.
    static func applySubjects(
        _ request: OAuthClientRequest, to client: inout OAuthClientRecord, selfRegistered: Bool
    ) throws {
        if let type = request.subjectType {
            guard subjectTypes.contains(type) else {
                throw ServiceError.invalid(
                    "\(Member.subjectType) must be public or pairwise", field: Member.subjectType.stringValue)
            }
            client.pairwiseSubjects = type == "pairwise"
        }
        if let uri = request.sectorIdentifierURI {
            client.settings.sectorIdentifierURI =
                uri.isEmpty ? nil : try sectorIdentifierURI(uri, selfRegistered: selfRegistered)
        }
    }

    /// An admin-made pairwise client without a sector document takes its sector from its
    /// redirect URIs (OpenID Connect Core §8.1): several hosts need `sector_identifier_uri`.
    /// (A self-registered one is a sector of its own without a document, ``OAuthClientRecord/sector``.)
    static func checkSubjects(_ client: OAuthClientRecord, selfRegistered: Bool) throws {
        guard client.pairwiseSubjects, client.settings.sectorIdentifierURI == nil, !selfRegistered else { return }
        let https = client.redirectURIs.filter { $0.lowercased().hasPrefix("https:") }
        guard https.isEmpty || OAuthClientRecord.httpsHost(of: https) != nil else {
            throw ServiceError.invalid(
                "A pairwise client whose \(Member.redirectURIs) have several hosts must register a "
                    + "\(Member.sectorIdentifierURI)", field: Member.sectorIdentifierURI.stringValue)
        }
    }

    /// A pairwise client keeps its sector: every `sub` it knows is of that sector, so an update
    /// that would move it (other redirect hosts, another or no sector document, public subjects)
    /// is refused. A client that was public may become pairwise.
    static func checkSectorKept(_ updated: OAuthClientRecord, stored: OAuthClientRecord) throws {
        guard let sector = stored.sector, updated.sector != sector else { return }
        throw ServiceError.invalid(
            "This update would change the client's pairwise sector (\(sector)) and so every user's sub: keep "
                + "\(Member.subjectType), \(Member.sectorIdentifierURI) and the redirect URIs' host, or register a new "
                + "client", field: Member.subjectType.stringValue)
    }

    /// A `sector_identifier_uri` (OpenID Connect Registration 1.0 §2): an absolute https URI
    /// without a fragment; for a client that registered itself, not an address of the server's
    /// own network (``OutboundAddress``; the fetch checks the resolved addresses too).
    static func sectorIdentifierURI(_ text: String, selfRegistered: Bool) throws -> String {
        let field = Member.sectorIdentifierURI.stringValue
        guard text.utf8.count <= 2000, let url = URLComponents(string: text), url.fragment == nil,
            url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty
        else {
            throw ServiceError.invalid("\(field) must be an absolute https URI without a fragment", field: field)
        }
        if selfRegistered, OutboundAddress.isInternalLiteral(host) {
            throw ServiceError.invalid(
                "\(field) of a client that registers itself must be a public https address", field: field)
        }
        return text
    }
}

/// The members a message names, by their wire names.
private typealias Member = ClientMetadata.Member
