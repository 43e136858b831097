import Foundation
import UMFAStorage
import UMFATokens

/// Records for the conformance tests, with times on whole milliseconds so they round-trip
/// exactly.
enum Records {
    static let epoch = Date(timeIntervalSince1970: 1_767_225_600)

    /// `epoch` plus `seconds`, on a whole millisecond.
    static func time(_ seconds: Double) -> Date {
        Date(timeIntervalSince1970: Double(Int64(((1_767_225_600 + seconds) * 1000).rounded())) / 1000)
    }

    static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255) }
    }

    static func application(
        id: UUID = UUID(), name: String = "Shop", createdAt: Date = epoch, policy: EnrollmentPolicy = .grant
    ) -> ApplicationRecord {
        ApplicationRecord(
            id: id, name: name, rpID: "example.com", rpName: "Example shop",
            origins: ["https://app.example.com", "ios:bundle-id:com.example.app"], enrollmentPolicy: policy,
            userVerification: .preferred, attestation: .none, tokenTTLSeconds: 300, createdAt: createdAt)
    }

    static func user(_ applicationID: UUID, _ userID: String, createdAt: Date = epoch) -> UserRecord {
        UserRecord(
            applicationID: applicationID, userID: userID, userHandle: bytes(32), displayName: "Name of \(userID)",
            createdAt: createdAt)
    }

    static func credential(
        _ applicationID: UUID, _ userID: String, id: [UInt8] = bytes(32), createdAt: Date = epoch,
        signCount: UInt32 = 0, deviceName: String? = "Phone"
    ) -> StoredCredential {
        StoredCredential(
            applicationID: applicationID, userID: userID, credentialID: id, publicKey: bytes(77),
            signCount: signCount, aaguid: bytes(16), transports: ["internal", "hybrid"], backupEligible: true,
            backupState: false, uvInitialized: true, attestationFormat: "packed", deviceName: deviceName,
            createdAt: createdAt, lastUsedAt: nil)
    }

    static func challenge(
        _ applicationID: UUID, user: String? = "alice", ceremony: CeremonyKind = .authentication,
        expiresAt: Date = time(300)
    ) -> ChallengeRecord {
        ChallengeRecord(
            challenge: bytes(32), applicationID: applicationID, userID: user, ceremony: ceremony,
            userVerification: .required, userpwTime: time(-60), expiresAt: expiresAt)
    }

    static func enrollmentToken(_ applicationID: UUID, user: String, expiresAt: Date = time(600))
        -> EnrollmentTokenRecord
    {
        EnrollmentTokenRecord(
            tokenHash: bytes(32), applicationID: applicationID, userID: user, userpwTime: time(-30),
            expiresAt: expiresAt)
    }

    static func signingKey(_ kid: String, createdAt: Date, algorithm: String = "RS256") -> SigningKeyRecord {
        SigningKeyRecord(
            kid: kid, algorithm: algorithm, publicKey: bytes(294), sealedPrivateKey: bytes(1220), createdAt: createdAt,
            retiredAt: nil)
    }

    /// An application stored with one user, the usual starting point.
    static func seed(_ store: any UMFAStore, users: [String] = ["alice"]) async throws -> ApplicationRecord {
        let app = application()
        try await store.insertApplication(app)
        for user in users { _ = try await store.insertUser(Records.user(app.id, user)) }
        return app
    }
}
