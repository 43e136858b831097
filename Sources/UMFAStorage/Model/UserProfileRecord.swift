import Foundation

/// A user's profile: the OpenID Connect Core §5.1 claims UMFA keeps.
package struct UserProfileRecord: Sendable, Equatable {
    /// The application the user belongs to.
    package var applicationID: UUID
    /// The user.
    package var userID: String
    /// Email address; unique per application, compared without case.
    package var email: String?
    /// Whether the application verified the email address.
    package var emailVerified: Bool
    /// Given name.
    package var givenName: String?
    /// Family name.
    package var familyName: String?
    /// Phone number.
    package var phoneNumber: String?
    /// Whether the application verified the phone number.
    package var phoneNumberVerified: Bool
    /// When the profile last changed.
    package var updatedAt: Date

    /// Creates a profile.
    package init(
        applicationID: UUID, userID: String, email: String?, emailVerified: Bool, givenName: String?,
        familyName: String?, phoneNumber: String?, phoneNumberVerified: Bool, updatedAt: Date
    ) {
        self.applicationID = applicationID
        self.userID = userID
        self.email = email
        self.emailVerified = emailVerified
        self.givenName = givenName
        self.familyName = familyName
        self.phoneNumber = phoneNumber
        self.phoneNumberVerified = phoneNumberVerified
        self.updatedAt = updatedAt
    }

    /// The email as it is compared: lowercased (Unicode default case mapping).
    static func emailKey(_ email: String?) -> String? { email?.lowercased() }
}

/// Users' profiles.
package protocol UserProfileStore: Sendable {
    /// Inserts or replaces the user's profile; ``StoreError/Code/conflict`` when another user of
    /// the application has the same email (without case), or the user does not exist.
    func saveUserProfile(_ profile: UserProfileRecord) async throws
    /// The user's profile, if any.
    func userProfile(applicationID: UUID, userID: String) async throws -> UserProfileRecord?
    /// The user whose email matches without case; `nil` when none.
    func userID(applicationID: UUID, email: String) async throws -> String?
    /// Creates an account: a new user, its profile and its first credential, all or none
    /// (a step that fails removes what the earlier ones stored). `false` when another user of
    /// the application has the email (without case), decided by the unique index, so of two
    /// sign-ups with one address only one is stored; ``StoreError/Code/conflict`` when the
    /// user id exists or the credential id is registered already.
    func insertAccount(_ user: UserRecord, profile: UserProfileRecord, credential: StoredCredential) async throws
        -> Bool
}

extension StoreQueries {
    static func saveUserProfile(_ profile: UserProfileRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO user_profiles (application_id, user_id, email, email_key, email_verified, given_name,
                family_name, phone_number, phone_number_verified, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (application_id, user_id) DO UPDATE SET email = excluded.email,
                email_key = excluded.email_key, email_verified = excluded.email_verified,
                given_name = excluded.given_name, family_name = excluded.family_name,
                phone_number = excluded.phone_number, phone_number_verified = excluded.phone_number_verified,
                updated_at = excluded.updated_at
            """,
            [
                .uuid(profile.applicationID), .text(profile.userID), profile.email.map { .text($0) } ?? .null,
                UserProfileRecord.emailKey(profile.email).map { .text($0) } ?? .null, .bool(profile.emailVerified),
                profile.givenName.map { .text($0) } ?? .null, profile.familyName.map { .text($0) } ?? .null,
                profile.phoneNumber.map { .text($0) } ?? .null, .bool(profile.phoneNumberVerified),
                .date(profile.updatedAt),
            ])
    }

    static func userProfile(applicationID: UUID, userID: String) -> StoreQuery {
        StoreQuery(
            "SELECT * FROM user_profiles WHERE application_id = ? AND user_id = ?",
            [.uuid(applicationID), .text(userID)])
    }

    static func userByEmail(applicationID: UUID, email: String) -> StoreQuery {
        StoreQuery(
            "SELECT user_id FROM user_profiles WHERE application_id = ? AND email_key = ?",
            [.uuid(applicationID), .text(email.lowercased())])
    }
}

extension UserProfileRecord {
    init(row: any StoredRow) throws {
        self.init(
            applicationID: try row.uuid("application_id"), userID: try row.text("user_id"),
            email: row.optionalText("email"), emailVerified: try row.bool("email_verified"),
            givenName: row.optionalText("given_name"), familyName: row.optionalText("family_name"),
            phoneNumber: row.optionalText("phone_number"), phoneNumberVerified: try row.bool("phone_number_verified"),
            updatedAt: try row.date("updated_at"))
    }
}

extension SQLStore {
    func saveUserProfile(_ profile: UserProfileRecord) async throws {
        _ = try await executor.rows(StoreQueries.saveUserProfile(profile))
    }

    func userProfile(applicationID: UUID, userID: String) async throws -> UserProfileRecord? {
        try await executor.rows(StoreQueries.userProfile(applicationID: applicationID, userID: userID)).first.map {
            try UserProfileRecord(row: $0)
        }
    }

    func userID(applicationID: UUID, email: String) async throws -> String? {
        try await executor.rows(StoreQueries.userByEmail(applicationID: applicationID, email: email)).first?
            .optionalText("user_id")
    }
}
