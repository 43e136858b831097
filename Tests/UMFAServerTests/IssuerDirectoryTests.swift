import Foundation
import Testing
import UMFAStorage

@testable import UMFAServer

/// ``IssuerDirectory`` built from its port alone (``IssuerRecords``), no server and no store:
/// which reads it makes, and what an unknown or malformed issuer is.
@Suite("Issuer directory: the issuer and the named client in one read")
struct IssuerDirectoryTests {
    /// A small implementation of the port that remembers the reads it answered.
    final class Records: IssuerRecords, @unchecked Sendable {
        let application: ApplicationRecord
        let client: OAuthClientRecord
        private let lock = NSLock()
        private var log: [String] = []

        init() {
            application = ApplicationRecord(
                id: UUID(), name: "Shop", rpID: "example.com", rpName: "Example shop",
                origins: ["https://app.example.com"], enrollmentPolicy: .grant, userVerification: .preferred,
                attestation: .none, tokenTTLSeconds: 300, createdAt: Date(timeIntervalSince1970: 0))
            client = OAuthClientSettings.newClient(applicationID: application.id, at: Date(timeIntervalSince1970: 0))
        }

        var reads: [String] { lock.withLock { log } }

        func application(id: UUID) async throws -> ApplicationRecord? {
            lock.withLock { log.append("application") }
            return id == application.id ? application : nil
        }

        func application(id: UUID, withOAuthClient clientID: String) async throws
            -> (application: ApplicationRecord, client: OAuthClientRecord?)?
        {
            lock.withLock { log.append("application+client") }
            guard id == application.id else { return nil }
            return (application, clientID.utf8.elementsEqual(client.clientID.utf8) ? client : nil)
        }
    }

    /// `TokenRequestStatementTests` shows end to end that the client is not read again.
    @Test("a request naming a client reads the application and the client in one read")
    func namedClientInOneRead() async throws {
        let records = Records()
        let issuers = IssuerDirectory(records: records, publicURL: "https://id.example.com/")
        let issuer = try await issuers.issuer(
            records.application.id.uuidString.lowercased(), namingClient: records.client.clientID)
        #expect(issuer.issuer == "https://id.example.com/oidc/" + records.application.id.uuidString.lowercased())
        #expect(issuer.application.id == records.application.id)
        #expect(records.reads == ["application+client"])
    }

    @Test("a known issuer with an unknown client is still the issuer (client authentication refuses the client)")
    func unknownClient() async throws {
        let records = Records()
        let issuer = try await IssuerDirectory(records: records, publicURL: "https://id.example.com")
            .issuer(records.application.id.uuidString, namingClient: "umfa_ci_unknown")
        #expect(issuer.application.id == records.application.id)
        #expect(records.reads == ["application+client"])
    }

    @Test("an unknown or malformed issuer is 404 (not found), and a malformed one reads nothing")
    func unknownIssuer() async throws {
        let records = Records()
        let issuers = IssuerDirectory(records: records, publicURL: "https://id.example.com")
        for text in [UUID().uuidString, "not-a-uuid", nil] as [String?] {
            let error = await #expect(throws: ServiceError.self) { try await issuers.issuer(text) }
            #expect(error?.code == .notFound)
        }
        #expect(records.reads == ["application"])
    }
}
