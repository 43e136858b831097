import Crypto
import Foundation
import Testing
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// PIN and password operations on an authenticator, straight through its CTAP-level API.
enum PINFixture {
    /// scrypt N for tests that do not measure the cost: fast, and still a real scrypt.
    static let fastRounds = 1 << 4

    static func authenticator(
        store: any CredentialStore = InMemoryCredentialStore(), scryptRounds: Int = fastRounds
    ) -> SoftwareAuthenticator {
        SoftwareAuthenticator(store: store, deviceKey: deviceKey, scryptRounds: scryptRounds)
    }

    /// One device key for every authenticator a test makes over one store.
    static let deviceKey = SymmetricKey(size: .bits256)

    static func user(_ name: String) -> UserEntity {
        UserEntity(id: Base64URLBytes(Array(name.utf8)), name: name, displayName: name.capitalized)
    }

    /// Creates a credential for `user` protected by `secret`; returns its id.
    static func create(
        _ authenticator: SoftwareAuthenticator, user: String, _ kind: SecretKind = .pin, secret: String
    ) throws(AuthenticatorError) -> [UInt8] {
        try authenticator.makeCredential(
            MakeCredentialRequest(
                clientDataHash: Array(repeating: 1, count: 32), rpID: Fixture.rpID, user: Self.user(user),
                algorithms: [.es256]),
            verification: .secret(kind, secret)
        ).credentialID
    }

    /// Signs with `credential` after giving `secret`.
    @discardableResult
    static func sign(
        _ authenticator: SoftwareAuthenticator, _ credential: [UInt8], _ kind: SecretKind = .pin, secret: String
    ) throws(AuthenticatorError) -> GetAssertionResult {
        try authenticator.getAssertion(
            GetAssertionRequest(
                clientDataHash: Array(repeating: 2, count: 32), rpID: Fixture.rpID, allowCredentialIDs: [credential]),
            verification: .secret(kind, secret))
    }

    /// The error `body` throws, or `nil` when it succeeds.
    static func refusal<T>(_ body: () throws(AuthenticatorError) -> T) -> AuthenticatorError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }
}
