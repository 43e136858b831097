import Foundation
import Testing
import UMFAStorage

/// `insertAccount`: account creation stores a new user, its profile and its first credential
/// together, or none of them (docs/security-reviews.md, "Account creation that stored a user per options call").
@Suite("Storage: accounts created with their first passkey")
struct AccountStoreTests {
    static func profile(_ applicationID: UUID, _ userID: String, email: String) -> UserProfileRecord {
        UserProfileRecord(
            applicationID: applicationID, userID: userID, email: email, emailVerified: false, givenName: "Ada",
            familyName: nil, phoneNumber: nil, phoneNumberVerified: false, updatedAt: Records.time(5))
    }

    @Test("user, profile and credential are stored together", arguments: Engine.allCases)
    func stored(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: [])
            let user = Records.user(app.id, "new-user")
            let credential = Records.credential(app.id, "new-user")
            let inserted = try await store.insertAccount(
                user, profile: Self.profile(app.id, "new-user", email: "Ada@example.com"), credential: credential)
            #expect(inserted)
            #expect(try await store.user(applicationID: app.id, userID: "new-user") == user)
            #expect(try await store.userProfile(applicationID: app.id, userID: "new-user")?.email == "Ada@example.com")
            #expect(try await store.credentials(applicationID: app.id, userID: "new-user") == [credential])
        }
    }

    @Test("an email another user has (without case) is false and leaves no new user", arguments: Engine.allCases)
    func emailTaken(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: [])
            let first = try await store.insertAccount(
                Records.user(app.id, "first"), profile: Self.profile(app.id, "first", email: "bo@example.com"),
                credential: Records.credential(app.id, "first"))
            #expect(first)
            let second = try await store.insertAccount(
                Records.user(app.id, "second"), profile: Self.profile(app.id, "second", email: "BO@Example.com"),
                credential: Records.credential(app.id, "second"))
            #expect(!second)
            #expect(try await store.user(applicationID: app.id, userID: "second") == nil)
            #expect(try await store.credentials(applicationID: app.id, userID: "second").isEmpty)
            #expect(try await store.userID(applicationID: app.id, email: "bo@example.com") == "first")
        }
    }

    @Test(
        "a registered credential id or an existing user id is a conflict and leaves nothing", arguments: Engine.allCases
    )
    func conflicts(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            let app = try await Records.seed(store, users: ["alice"])
            let alices = Records.credential(app.id, "alice")
            try await store.insertCredential(alices)
            let reused = await #expect(throws: StoreError.self) {
                _ = try await store.insertAccount(
                    Records.user(app.id, "mallory"), profile: Self.profile(app.id, "mallory", email: "m@example.com"),
                    credential: Records.credential(app.id, "mallory", id: alices.credentialID))
            }
            #expect(reused?.code == .conflict)
            #expect(try await store.user(applicationID: app.id, userID: "mallory") == nil)
            #expect(try await store.userID(applicationID: app.id, email: "m@example.com") == nil)

            let existing = await #expect(throws: StoreError.self) {
                _ = try await store.insertAccount(
                    Records.user(app.id, "alice"), profile: Self.profile(app.id, "alice", email: "a@example.com"),
                    credential: Records.credential(app.id, "alice"))
            }
            #expect(existing?.code == .conflict)
            #expect(try await store.credentials(applicationID: app.id, userID: "alice") == [alices])
            #expect(try await store.userProfile(applicationID: app.id, userID: "alice") == nil)
        }
    }
}
