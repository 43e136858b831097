import UMFAContract
import UMFAStorage

/// `GET /.well-known/webauthn` (WebAuthn L3 §5.11.1): the related origins of the applications
/// whose RP ID is the host the request names. A browser fetches the document from
/// `https://<rp_id>/.well-known/webauthn`, so it takes effect where UMFA answers on the RP ID's
/// host (or the application's site serves UMFA's document there).
///
/// Applications that share an RP ID share its passkeys and publish one document: their related
/// origins merged, the oldest application's first, duplicates removed (``RelatedOrigins/merged(_:)``).
struct RelatedOriginsService: Sendable {
    let store: any ApplicationStore

    /// The document for the host of a request's `Host` header (`login.example.com:8443`); 404
    /// when no application has that RP ID, or none of them lists a related origin.
    func document(host: String) async throws -> RelatedOriginsDocument {
        guard let rpID = Self.rpID(fromHost: host) else { throw Self.unknown }
        let applications = try await store.applications(rpID: rpID)
        let origins = RelatedOrigins.merged(applications.map(\.relatedOrigins))
        guard !origins.isEmpty else { throw Self.unknown }
        return RelatedOriginsDocument(origins: origins)
    }

    /// The RP ID a `Host` header names: the host without its port, lower-cased, without a
    /// trailing dot; `nil` when that is no domain name (an IP address, an empty header).
    static func rpID(fromHost host: String) -> String? {
        var name = Substring(host.lowercased())
        if name.hasPrefix("[") { return nil }
        if let colon = name.lastIndex(of: ":") {
            guard name[name.index(after: colon)...].allSatisfy(\.isNumber) else { return nil }
            name = name[..<colon]
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        let rpID = String(name)
        guard ApplicationSettingsValidation.isValidRPID(rpID) else { return nil }
        return rpID
    }

    private static let unknown = ServiceError.notFound("No related origins for this host")
}
