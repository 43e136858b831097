import Foundation
import UMFAEncoding
import UMFAStorage
import UMFATokens
import UMFAWebAuthn

/// Issues and checks login tokens, with honest `amr` values (RFC 8176).
struct LoginTokens: Sendable {
    /// The stores a login token is checked against: the credential it names.
    typealias Store = CredentialStore

    let tokens: TokenService
    let store: any Store
    let validationCache: ValidationCache
    let now: @Sendable () -> Date

    /// `uvm` extension method bits (FIDO registry, USER_VERIFY_*) and the `amr` they justify.
    static let uvmMethods: [(UInt64, String)] = [
        (0x0000_0002, "fpt"), (0x0000_0004, "pin"), (0x0000_0010, "face"), (0x0000_0800, "pwd"),
        (0x0000_0008, "fpt"),
    ]

    /// The extensions every ceremony asks for: `uvm`, so the authenticator can say, in signed
    /// data, how it verified the user, and `amr` can name the method.
    static let requestedExtensions: [String: JSONValue] = ["uvm": .bool(true)]

    /// `swk` (we cannot prove a hardware key), `user` for presence, and the verification
    /// methods the authenticator's signed `uvm` output names when UV was set.
    static func amr(for authenticatorData: AuthenticatorData) -> [String] {
        var values = ["swk", "user"]
        guard authenticatorData.flags.isUserVerified, let entries = authenticatorData.extensions?["uvm"]?.arrayValue
        else { return values }
        for entry in entries {
            guard let method = entry.arrayValue?.first?.int64Value else { continue }
            for (bit, name) in uvmMethods where UInt64(method) & bit != 0 && !values.contains(name) {
                values.append(name)
            }
        }
        return values
    }

    /// How the credential a login token names is looked up.
    enum CredentialLookup {
        /// Read from the store each time: self-service and enrollment grants, which act on it.
        case fresh
        /// Through ``ValidationCache``: validate-token, which only answers yes or no and is
        /// called for every request of an application backend.
        case cached
    }

    /// Validates a login token of `application` for `userID` (docs/contract.md §2 and §4): the token
    /// service's checks with the application's TTL as the longest lifetime, then the credential
    /// it names must still be registered to that user, so deleting a credential ends its tokens.
    func validate(
        _ jwt: String, application: ApplicationRecord, userID: String,
        lookup: CredentialLookup = .fresh
    ) async throws -> LoginTokenClaims? {
        let claims = try await tokens.validate(
            jwt, applicationID: application.id, userID: userID,
            maximumLifetime: TimeInterval(application.tokenTTLSeconds), now: now())
        try await requireCredential(of: claims, application: application, lookup: lookup)
        return claims
    }

    /// Throws ``TokenValidationFailure`` unless the credential `claims` name is still registered
    /// to their user.
    func requireCredential(
        of claims: LoginTokenClaims?, application: ApplicationRecord,
        lookup: CredentialLookup
    ) async throws {
        guard let claims, let id = Base64URL.decodeCanonical(claims.credentialID) else {
            throw TokenValidationFailure("Invalid JWT: There is no credential_id claim")
        }
        let read = { try await store.credential(applicationID: application.id, credentialID: id)?.userID }
        let owner =
            switch lookup {
            case .fresh: try await read()
            case .cached:
                try await validationCache.owner(
                    of: .init(applicationID: application.id, credentialID: id), read: read)
            }
        guard let owner, owner.isSameBytes(as: claims.userID) else {
            throw TokenValidationFailure("Invalid JWT: the credential that signed in is no longer registered")
        }
    }

    /// A login token for `credential`'s user, who signed in (or registered) with it just now:
    /// `authenticatorData` says how (`amr`, and with the credential the level, `acr`).
    func issue(
        application: ApplicationRecord, credential: StoredCredential, authenticatorData: AuthenticatorData,
        userpwTime: Date?
    ) async throws -> String {
        let now = self.now()
        let claims = LoginTokenClaims(
            iss: tokens.issuer, sub: LoginTokenClaims.subject,
            aud: [tokens.issuer, application.id.uuidString.lowercased()],
            iat: Int64(now.timeIntervalSince1970),
            exp: Int64(now.timeIntervalSince1970) + Int64(application.tokenTTLSeconds),
            jti: SecureRandom.uuidString(), userID: credential.userID,
            applicationID: application.id.uuidString.lowercased(),
            credentialID: Base64URL.encode(credential.credentialID), webauthnTime: Timestamps.rfc3339(now),
            userpwTime: userpwTime.map(Timestamps.rfc3339), amr: Self.amr(for: authenticatorData),
            acr: AuthenticationLevel.reached(authenticatorData, credential: credential).rawValue)
        return try await tokens.issue(claims, algorithm: application.tokenSigningAlgorithm)
    }
}
