import Foundation
import NIOCore
import NIOSSL
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// The documents a pairwise client's `sector_identifier_uri` names (OpenID Connect Registration
/// 1.0 §5): fetched when the client is registered or changed, and holding every redirect URI of
/// the client, else the registration is refused. The fetch is the server's request on a
/// client's behalf, so it is bounded: https only, no redirect followed, ``timeout``,
/// ``largest`` bytes, and for a client that registered itself only public addresses
/// (``OutboundAddress``).
struct SectorIdentifierDocuments: Sendable {
    /// Extra CAs the documents' servers may chain to (`UMFA_SECTOR_IDENTIFIER_CA_FILE`), beside
    /// the system's.
    var trustRoots: [NIOSSLCertificate] = []
    /// How long a fetch may take, connection included.
    var timeout: TimeAmount = .seconds(5)
    /// The largest document read, in bytes.
    static let largest = 64 * 1024

    /// Checks the document of `client` when it has pairwise subjects and a `sector_identifier_uri`.
    /// - Throws: ``ServiceError`` 400 naming `sector_identifier_uri`, with what went wrong.
    func check(_ client: OAuthClientRecord, selfRegistered: Bool) async throws {
        guard client.pairwiseSubjects, let uri = client.settings.sectorIdentifierURI else { return }
        let listed = try await document(uri, selfRegistered: selfRegistered)
        for uri in client.redirectURIs where !listed.contains(where: { $0.utf8.elementsEqual(uri.utf8) }) {
            throw Self.refusal("the document does not list the redirect URI \(uri)")
        }
    }

    /// The URIs the document at `uri` lists.
    private func document(_ uri: String, selfRegistered: Bool) async throws -> [String] {
        guard let host = URLComponents(string: uri)?.host else { throw Self.refusal("it has no host") }
        // Step 1: never the server's own network for a client anyone may register.
        if selfRegistered, await !OutboundAddress.resolvesToPublicOnly(host) {
            throw Self.refusal("its host is not a public address")
        }
        // Step 2: one GET, no redirect, bounded in size and in time (``BoundedFetch``).
        let fetch = BoundedFetch(
            trustRoots: trustRoots, timeout: timeout, largest: Self.largest, accept: "application/json",
            userAgent: "UMFA-Sector/1")
        // What went wrong is told to the admin API; a client that registers itself learns only
        // that the fetch failed, so the endpoint is no probe of other hosts' ports and TLS.
        let body: ByteBuffer
        switch await fetch.get(uri) {
        case .success(let bytes): body = bytes
        case .failure(let failure):
            guard !selfRegistered else {
                throw Self.refusal("it could not be fetched: an https server must answer 200 with the document")
            }
            switch failure {
            case .status(let code): throw Self.refusal("its server answered HTTP \(code)")
            case .tooLarge: throw Self.refusal("the document is larger than \(Self.largest) bytes")
            case .timedOut:
                throw Self.refusal("the document did not come within \(timeout.nanoseconds / 1_000_000_000) s")
            case .transport: throw Self.refusal("it could not be fetched over https")
            }
        }
        // Step 3: a JSON array of URIs (Registration §5).
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(buffer: body)),
            case .array(let items) = value
        else { throw Self.refusal("the document is not a JSON array") }
        return items.compactMap(\.stringValue)
    }

    private static func refusal(_ why: String) -> ServiceError {
        let field = ClientMetadata.Member.sectorIdentifierURI.stringValue
        return ServiceError.invalid("\(field) is refused: \(why)", field: field)
    }
}
