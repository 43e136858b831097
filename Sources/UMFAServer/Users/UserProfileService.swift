import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// Users' profiles (OpenID Connect Core §5.1): created with an account on the hosted pages,
/// changed by the application's backend (`PATCH /api/umfa/users/{user_id}/profile`), and read
/// into ID tokens and UserInfo by scope.
struct UserProfileService: Sendable {
    let apiKeys: APIKeyAuthentication
    let store: any CredentialStore & UserProfileStore
    /// Tells the old, verified address when the address changes.
    let notices: SecurityNotices?
    let now: @Sendable () -> Date

    /// An email address as HTML's `type=email` takes it: one `@`, no spaces, at most 254 bytes.
    static func checkEmail(_ email: String) throws {
        // By byte: a `@` or `.` followed by a combining mark is still one (docs/contract.md §4).
        let parts = ASCIISplit.split(email, at: "@", omittingEmpty: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, ASCIISplit.contains(parts[1], "."),
            parts[1].utf8.first != UInt8(ascii: "."), parts[1].utf8.last != UInt8(ascii: "."),
            !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 })
        else {
            throw ServiceError.invalid("email must be an email address such as alice@example.com", field: "email")
        }
    }

    /// Changes the members the request names; an empty string removes a value.
    func update(_ request: UserProfileRequest, userID: String?, caller: Caller) async throws -> UserProfileResponse {
        let application =
            try await apiKeys
            .application(for: caller, applicationID: request.applicationID)
        guard let userID else { throw ServiceError.invalid("user_id must be percent-encoded UTF-8") }
        try FieldRules.checkUserID(userID)
        guard try await store.user(applicationID: application.id, userID: userID) != nil else {
            throw ServiceError.notFound("No such user")
        }
        let stored = try await store.userProfile(applicationID: application.id, userID: userID)
        var profile =
            stored
            ?? UserProfileRecord(
                applicationID: application.id, userID: userID, email: nil, emailVerified: false, givenName: nil,
                familyName: nil, phoneNumber: nil, phoneNumberVerified: false, updatedAt: now())
        func change(_ value: String?, _ field: String, _ limit: Int) throws -> String?? {
            guard let value else { return .none }
            if value.isEmpty { return .some(nil) }
            guard value.utf8.count <= limit else {
                throw ServiceError.invalid("\(field) must be at most \(limit) bytes")
            }
            try FieldRules.refuseNUL(value, field: field)
            return .some(value)
        }
        if let email = try change(request.email, "email", 254) {
            if let email { try Self.checkEmail(email) }
            if email?.lowercased() != profile.email?.lowercased() { profile.emailVerified = false }
            profile.email = email
        }
        if let value = try change(request.givenName, "given_name", 256) { profile.givenName = value }
        if let value = try change(request.familyName, "family_name", 256) { profile.familyName = value }
        if let phone = try change(request.phoneNumber, "phone_number", 32) {
            if phone != profile.phoneNumber { profile.phoneNumberVerified = false }
            profile.phoneNumber = phone
        }
        if let verified = request.emailVerified { profile.emailVerified = verified && profile.email != nil }
        if let verified = request.phoneNumberVerified {
            profile.phoneNumberVerified = verified && profile.phoneNumber != nil
        }
        profile.updatedAt = now()
        do {
            try await store.saveUserProfile(profile)
        } catch let error as StoreError where error.code == .conflict {
            throw ServiceError.conflict("Another user of this application has this email address")
        }
        if let stored { await notices?.emailChanged(from: stored, to: profile.email, application: application) }
        return UserProfileResponse(
            traceID: caller.traceID, userID: userID, email: profile.email, emailVerified: profile.emailVerified,
            givenName: profile.givenName, familyName: profile.familyName, phoneNumber: profile.phoneNumber,
            phoneNumberVerified: profile.phoneNumberVerified)
    }

    /// The claims of `scopes` for the user (OpenID Connect Core §5.4).
    func claims(applicationID: UUID, userID: String, scopes: [String]) async throws -> UserinfoResponse {
        guard Self.readsProfile(scopes) else { return UserinfoResponse(sub: userID) }
        return Self.claims(
            of: try await store.userProfile(applicationID: applicationID, userID: userID), userID: userID,
            scopes: scopes)
    }

    /// Whether the claims of `scopes` come from the profile.
    static func readsProfile(_ scopes: [String]) -> Bool {
        scopes.contains(where: { ["profile", "email", "phone"].contains($0) })
    }

    /// The claims of `scopes` from `profile`, the user's profile read already (`nil`: none).
    static func claims(of profile: UserProfileRecord?, userID: String, scopes: [String]) -> UserinfoResponse {
        var claims = UserinfoResponse(sub: userID)
        guard readsProfile(scopes), let profile else { return claims }
        if scopes.contains("email"), let email = profile.email {
            claims.email = email
            claims.emailVerified = profile.emailVerified
        }
        if scopes.contains("profile") {
            claims.givenName = profile.givenName
            claims.familyName = profile.familyName
            let name = [profile.givenName, profile.familyName].compactMap { $0 }.joined(separator: " ")
            claims.name = name.isEmpty ? nil : name
            claims.updatedAt = Int(profile.updatedAt.timeIntervalSince1970)
        }
        if scopes.contains("phone"), let phone = profile.phoneNumber {
            claims.phoneNumber = phone
            claims.phoneNumberVerified = profile.phoneNumberVerified
        }
        return claims
    }
}
