import Crypto
import Foundation
import UMFACBOR
import UMFAWebAuthn

/// A FIDO2 authenticator in software: P-256 credentials, a real signature counter,
/// `none` or `packed` self attestation, and the excludeCredentials / allowCredentials / UV
/// rules of CTAP 2.1.
///
/// It does no file or network work: credentials live in the injected ``CredentialStore``,
/// and user verification is reported by the caller, which alone knows whether a PIN,
/// password or biometric check really happened. The UV flag is set only then.
public struct SoftwareAuthenticator: Sendable {
    /// The authenticator model's AAGUID.
    public let aaguid: [UInt8]
    /// Where credentials are kept.
    public let store: any CredentialStore
    private let randomBytes: @Sendable (Int) -> [UInt8]
    private let now: @Sendable () -> Date

    /// The AAGUID UMFA's software authenticator reports: `554d4641-0000-4000-8000-736f66747761`.
    public static let defaultAAGUID: [UInt8] = [
        0x55, 0x4d, 0x46, 0x41, 0x00, 0x00, 0x40, 0x00, 0x80, 0x00, 0x73, 0x6f, 0x66, 0x74, 0x77, 0x61,
    ]

    /// Creates an authenticator over `store`.
    ///
    /// - Parameters:
    ///   - aaguid: the model identifier reported in attested credential data.
    ///   - randomBytes: the source of credential ids; the system generator by default.
    ///   - now: the clock used for creation times.
    public init(
        store: any CredentialStore, aaguid: [UInt8] = SoftwareAuthenticator.defaultAAGUID,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = SoftwareAuthenticator.systemRandomBytes,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.aaguid = aaguid
        self.randomBytes = randomBytes
        self.now = now
    }

    /// Random bytes from the operating system's generator.
    public static func systemRandomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// authenticatorMakeCredential: creates, stores and attests a new P-256 credential.
    ///
    /// - Parameter userVerified: whether the caller verified the user for this operation.
    /// - Throws: ``AuthenticatorError`` `invalidState` when an excluded credential is here,
    ///   `notSupported` without ES256 among the algorithms, `userVerificationFailed` when UV
    ///   is required and did not happen.
    public func makeCredential(_ request: MakeCredentialRequest, userVerified: Bool) throws(AuthenticatorError)
        -> MakeCredentialResult
    {
        let existing = try store.credentials(rpID: request.rpID)
        if existing.contains(where: { request.excludeCredentialIDs.contains($0.id.bytes) }) {
            throw AuthenticatorError(.invalidState, "this authenticator already holds a credential for this account")
        }
        guard request.algorithms.contains(.es256) else {
            throw AuthenticatorError(.notSupported, "none of the requested algorithms is supported (only ES256)")
        }
        if request.requireUserVerification, !userVerified {
            throw AuthenticatorError(.userVerificationFailed, "user verification is required")
        }
        let key = P256.Signing.PrivateKey()
        let credential = CredentialSource(
            id: randomBytes(32), rpID: request.rpID, userHandle: request.user.id.bytes, userName: request.user.name,
            userDisplayName: request.user.displayName, privateKey: key, discoverable: request.requireResidentKey,
            createdAt: now())
        let publicKey = COSEKey(p256: key.publicKey)
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(request.rpID.utf8))),
            flags: userVerified ? [.userPresent, .userVerified] : [.userPresent], signCount: credential.signCount,
            attestedCredentialData: AttestedCredentialData(
                aaguid: aaguid, credentialID: credential.id.bytes, publicKey: publicKey))
        let statement: CBORMap
        switch request.attestation {
        case .none:
            statement = CBORMap()
        case .packedSelf:
            let signature = try Self.sign(authData.rawBytes + request.clientDataHash, with: key)
            statement = CBORMap([
                "alg": CBORValue(Int64(COSEAlgorithm.es256.rawValue)), "sig": .byteString(signature),
            ])
        }
        try store.save(credential)
        return MakeCredentialResult(
            credentialID: credential.id.bytes,
            attestationObject: AttestationObject(
                format: request.attestation == .none ? "none" : "packed", statement: statement,
                authenticatorData: authData),
            publicKey: publicKey)
    }

    /// authenticatorGetAssertion: signs with a matching credential after advancing its counter.
    ///
    /// The counter is saved before the signature is returned, so a crash can skip a value but
    /// never reuse one.
    /// - Throws: ``AuthenticatorError`` `notAllowed` when no credential matches,
    ///   `userVerificationFailed` when UV is required and did not happen.
    public func getAssertion(_ request: GetAssertionRequest, userVerified: Bool) throws(AuthenticatorError)
        -> GetAssertionResult
    {
        let candidates = try store.credentials(rpID: request.rpID).filter { credential in
            request.allowCredentialIDs.isEmpty
                ? credential.discoverable : request.allowCredentialIDs.contains(credential.id.bytes)
        }
        guard var credential = candidates.max(by: { $0.createdAt < $1.createdAt }) else {
            throw AuthenticatorError(.notAllowed, "no credential on this authenticator matches the request")
        }
        if request.requireUserVerification, !userVerified {
            throw AuthenticatorError(.userVerificationFailed, "user verification is required")
        }
        let key = try credential.signingKey()
        credential.signCount &+= 1
        try store.save(credential)
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(request.rpID.utf8))),
            flags: userVerified ? [.userPresent, .userVerified] : [.userPresent], signCount: credential.signCount)
        let signature = try Self.sign(authData.rawBytes + request.clientDataHash, with: key)
        return GetAssertionResult(
            credentialID: credential.id.bytes, authenticatorData: authData, signature: signature,
            userHandle: credential.userHandle.bytes)
    }

    static func sign(_ data: [UInt8], with key: P256.Signing.PrivateKey) throws(AuthenticatorError) -> [UInt8] {
        do {
            return [UInt8](try key.signature(for: data).derRepresentation)
        } catch {
            throw AuthenticatorError(.storageFailure, "signing failed")
        }
    }
}
