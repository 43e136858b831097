import Foundation

extension StoreQueries {
    /// Adds a user that must be new; the user id comes back only when the row was inserted.
    static func insertNewUser(_ user: UserRecord) -> StoreQuery {
        StoreQuery(
            """
            INSERT INTO users (application_id, user_id, user_handle, display_name, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING RETURNING user_id
            """,
            [
                .uuid(user.applicationID), .text(user.userID), .bytes(user.userHandle), .text(user.displayName),
                .date(user.createdAt),
            ])
    }

    /// Removes a user (and, by cascade, the profile) only while the user has no credential, so it
    /// never removes an account that got its passkey.
    static func deleteUserWithoutCredentials(applicationID: UUID, userID: String) -> StoreQuery {
        StoreQuery(
            """
            DELETE FROM users WHERE application_id = ? AND user_id = ?
            AND NOT EXISTS (SELECT 1 FROM credentials WHERE application_id = ? AND user_id = ?)
            """,
            [.uuid(applicationID), .text(userID), .uuid(applicationID), .text(userID)])
    }
}

extension SQLStore {
    func insertAccount(_ user: UserRecord, profile: UserProfileRecord, credential: StoredCredential) async throws
        -> Bool
    {
        guard profile.applicationID == user.applicationID, profile.userID.utf8.elementsEqual(user.userID.utf8),
            credential.applicationID == user.applicationID, credential.userID.utf8.elementsEqual(user.userID.utf8)
        else { throw StoreError(.conflict, "the profile and the credential must belong to the new user") }
        guard try await !executor.rows(StoreQueries.insertNewUser(user)).isEmpty else {
            throw StoreError(.conflict, "the user exists already")
        }
        // The user is new and has no credential, so nothing but the email index can refuse the
        // profile; a failure of any step removes the user again (the statement's own guard keeps
        // a user whose credential was stored after all, as an unconfirmed write may have been).
        do {
            try await saveUserProfile(profile)
        } catch let error as StoreError where error.code == .conflict {
            try await removeUnfinished(user)
            return false
        } catch {
            try? await removeUnfinished(user)
            throw error
        }
        do {
            guard try await insertFirstCredential(credential) else {
                throw StoreError(.conflict, "the new user has a credential already")
            }
        } catch {
            try? await removeUnfinished(user)
            throw error
        }
        return true
    }

    private func removeUnfinished(_ user: UserRecord) async throws {
        _ = try await executor.rows(
            StoreQueries.deleteUserWithoutCredentials(applicationID: user.applicationID, userID: user.userID))
    }
}
