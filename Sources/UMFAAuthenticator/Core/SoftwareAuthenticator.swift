import Crypto
import Foundation
import Synchronization
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthnModel
import UMFAWebAuthnTypes

/// A FIDO2 authenticator in software: P-256 credentials sealed at rest, a real signature
/// counter, `none` or `packed` self attestation, user verification by PIN or password with a
/// persisted attempt counter per credential and lockout, and the excludeCredentials /
/// allowCredentials / UV rules of CTAP 2.1.
///
/// It does no file or network work: credentials live in the injected ``CredentialStore``.
/// The UV flag is set only when the authenticator itself checked a PIN or password, or a
/// platform verifier confirmed the user.
public struct SoftwareAuthenticator: Sendable {
    /// The authenticator model's AAGUID.
    public let aaguid: [UInt8]
    /// Where credentials are kept.
    public let store: any CredentialStore
    /// Consecutive wrong PINs or passwords for one credential before that credential locks.
    public let maximumFailedAttempts: Int
    /// The CTAP extensions this authenticator supports (``AuthenticatorExtensions/all`` by default).
    public let extensions: AuthenticatorExtensions
    let sealer: KeySealer
    private let randomBytes: @Sendable (Int) -> [UInt8]
    private let now: @Sendable () -> Date
    let counterLock = CounterLock()

    /// The AAGUID UMFA's software authenticator reports: `554d4641-0000-4000-8000-736f66747761`.
    public static let defaultAAGUID: [UInt8] = [
        0x55, 0x4d, 0x46, 0x41, 0x00, 0x00, 0x40, 0x00, 0x80, 0x00, 0x73, 0x6f, 0x66, 0x74, 0x77, 0x61,
    ]

    /// scrypt N for new PIN and password seals: 2^17 (with r = 8 it uses 128 MiB and about
    /// half a second of one CPU core per try; docs/threat-model.md, "Stolen device", has the
    /// measurement). Seals made at a lower N still open, and are sealed again at this cost the
    /// next time their secret signs.
    public static let defaultScryptRounds = 1 << 17

    /// Creates an authenticator over `store` whose device key is `deviceKey`, held in memory.
    ///
    /// - Parameters:
    ///   - deviceKey: the key that seals every private key (with the PIN or password when set);
    ///     a new random one by default, for credentials that live as long as the process.
    ///   - scryptRounds: scrypt N for new PIN/password seals, a power of two up to 2^20;
    ///     ``defaultScryptRounds`` by default. Lower it only in tests.
    ///   - maximumFailedAttempts: wrong secrets in a row before a credential locks; 8 by default.
    ///   - extensions: the CTAP extensions to support; without `hmacSecret` no credential
    ///     supports PRF, without `credentialProtection` every credential has level 1.
    ///   - randomBytes: the source of credential ids and hmac-secret CredRandom values.
    ///   - now: the clock used for creation times.
    public init(
        store: any CredentialStore, deviceKey: SymmetricKey = SymmetricKey(size: .bits256),
        aaguid: [UInt8] = SoftwareAuthenticator.defaultAAGUID,
        scryptRounds: Int = SoftwareAuthenticator.defaultScryptRounds,
        maximumFailedAttempts: Int = 8,
        extensions: AuthenticatorExtensions = .all,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = SoftwareAuthenticator.systemRandomBytes,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            store: store, deviceKeyProvider: InMemoryDeviceKey(deviceKey), aaguid: aaguid, scryptRounds: scryptRounds,
            maximumFailedAttempts: maximumFailedAttempts, extensions: extensions,
            randomBytes: randomBytes, now: now)
    }

    /// Creates an authenticator over `store` whose device key stays in `deviceKeyProvider`:
    /// ``DeviceKeyFile`` beside the credentials, or a platform keystore.
    ///
    /// The other parameters are those of ``init(store:deviceKey:aaguid:scryptRounds:maximumFailedAttempts:extensions:randomBytes:now:)``.
    public init(
        store: any CredentialStore, deviceKeyProvider: any DeviceKeyProvider,
        aaguid: [UInt8] = SoftwareAuthenticator.defaultAAGUID,
        scryptRounds: Int = SoftwareAuthenticator.defaultScryptRounds,
        maximumFailedAttempts: Int = 8,
        extensions: AuthenticatorExtensions = .all,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = SoftwareAuthenticator.systemRandomBytes,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.extensions = extensions
        self.aaguid = aaguid
        self.sealer = KeySealer(deviceKey: deviceKeyProvider, scryptRounds: scryptRounds)
        self.maximumFailedAttempts = maximumFailedAttempts
        self.randomBytes = randomBytes
        self.now = now
    }

    /// Random bytes from the operating system's generator (``SecureRandom/bytes(_:)``).
    public static func systemRandomBytes(_ count: Int) -> [UInt8] {
        SecureRandom.bytes(count)
    }

    /// authenticatorMakeCredential: creates, seals, stores and attests a new P-256 credential.
    ///
    /// With `.secret`, the PIN or password (which must meet ``SecretPolicy``) protects the new
    /// key and the UV flag is set. Locked credentials are erased first: enrolling again is the
    /// way back from a lockout.
    /// The user's consent (``AuthenticatorConsent``) is the client's to ask, before this call
    /// (``WebAuthnClient/create(_:context:)``).
    /// - Throws: ``AuthenticatorError`` `invalidState` when an excluded credential is here,
    ///   `notSupported` without ES256, `userVerificationFailed` when UV is required and did not
    ///   happen, `weakSecret` for a PIN or password too short.
    public func makeCredential(_ request: MakeCredentialRequest, verification: UserVerification)
        throws(AuthenticatorError) -> MakeCredentialResult
    {
        if try holdsAny(
            of: request.excludeCredentialIDs, rpID: request.rpID, userVerified: verification.isVerification)
        {
            throw AuthenticatorError(.invalidState, "this authenticator already holds a credential for this account")
        }
        guard request.algorithms.contains(.es256) else {
            throw AuthenticatorError(.notSupported, "none of the requested algorithms is supported (only ES256)")
        }
        if request.requireUserVerification, !verification.isVerification {
            throw AuthenticatorError(.userVerificationFailed, "user verification is required")
        }
        var secret: (SecretKind, String)?
        if case .secret(let kind, let value) = verification {
            try SecretPolicy.check(kind, value)
            secret = (kind, value)
        }
        let key = P256.Signing.PrivateKey()
        let credentialID = randomBytes(32)
        let publicKey = COSEKey(p256: key.publicKey)
        // CTAP 2.1 §12.5: two random 32-byte values, one for use with UV and one without.
        let credRandom =
            extensions.contains(.hmacSecret)
            ? CredRandom(withUV: randomBytes(CredRandom.length), withoutUV: randomBytes(CredRandom.length)) : nil
        let protectionLevel =
            extensions.contains(.credentialProtection)
            ? request.credentialProtection ?? .userVerificationOptional : .userVerificationOptional
        let sealed = try sealer.seal(
            CredentialSecrets(key: key, credRandom: credRandom), credentialID: credentialID, secret: secret)
        let credential = CredentialSource(
            id: credentialID, rpID: request.rpID, userHandle: request.user.id.bytes, userName: request.user.name,
            userDisplayName: request.user.displayName, sealedPrivateKey: sealed.sealedKey,
            protection: sealed.protection, sealedCredRandom: sealed.sealedCredRandom,
            credentialProtection: protectionLevel, publicKey: publicKey.encoded,
            discoverable: request.requireResidentKey, createdAt: now())
        var outputs = Self.extensions(uvmRequested: request.userVerificationMethodRequested, verification)
        if request.credentialProtection != nil, extensions.contains(.credentialProtection) {
            outputs["credProtect"] = .unsigned(UInt64(protectionLevel.rawValue))
        }
        if request.hmacSecretRequested, credRandom != nil { outputs["hmac-secret"] = .boolean(true) }
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(request.rpID.utf8))),
            flags: verification.isVerification ? [.userPresent, .userVerified] : [.userPresent],
            signCount: credential.signCount,
            attestedCredentialData: AttestedCredentialData(
                aaguid: aaguid, credentialID: credentialID, publicKey: publicKey),
            extensions: outputs.nonEmpty)
        var statement = CBORMap()
        if request.attestation == .packedSelf {
            let signature = try Self.sign(authData.rawBytes + request.clientDataHash, with: key)
            statement = CBORMap(["alg": CBORValue(Int64(COSEAlgorithm.es256.rawValue)), "sig": .byteString(signature)])
        }
        try eraseLockedCredentials()
        try store.save(credential)
        return MakeCredentialResult(
            credentialID: credentialID,
            attestationObject: AttestationObject(
                format: request.attestation == .none ? "none" : "packed", statement: statement,
                authenticatorData: authData),
            publicKey: publicKey, discoverable: credential.discoverable, hmacSecret: credRandom != nil,
            hmacSecretOutput: request.hmacSecretSalts.flatMap {
                credRandom?.outputs(for: $0, userVerified: verification.isVerification)
            })
    }

    /// authenticatorGetAssertion: checks the PIN or password when the credential has one,
    /// advances the counter durably, then signs. A seal made at a lower scrypt N than this
    /// authenticator seals with is sealed again at the new cost on the way.
    ///
    /// - Throws: ``AuthenticatorError`` `notAllowed` when no credential matches,
    ///   `userVerificationFailed` for a wrong or missing secret, `lockedOut` after too many
    ///   wrong secrets in a row for this credential.
    public func getAssertion(_ request: GetAssertionRequest, verification: UserVerification) throws(AuthenticatorError)
        -> GetAssertionResult
    {
        let chosen = try candidate(for: request, userVerified: verification.isVerification)
        let (secrets, userVerified) = try unlock(chosen, verification: verification)
        if request.requireUserVerification, !userVerified {
            throw AuthenticatorError(.userVerificationFailed, "user verification is required")
        }
        let stronger = strongerSeal(of: chosen, secrets: secrets, verification: verification)
        let signCount = try serialized { () throws(AuthenticatorError) -> UInt32 in
            guard var fresh = try store.credential(id: chosen.id.bytes) else {
                throw AuthenticatorError(.notAllowed, "the credential was removed")
            }
            fresh.signCount &+= 1
            // Only over the seal it replaces: a secret changed meanwhile stays changed.
            if let stronger, fresh.sealedPrivateKey == chosen.sealedPrivateKey { fresh.replaceSeal(with: stronger) }
            try store.save(fresh)
            return fresh.signCount
        }
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(request.rpID.utf8))),
            flags: userVerified ? [.userPresent, .userVerified] : [.userPresent], signCount: signCount,
            extensions: Self.extensions(
                uvmRequested: request.userVerificationMethodRequested && userVerified, verification
            ).nonEmpty)
        let signature = try Self.sign(authData.rawBytes + request.clientDataHash, with: secrets.key)
        // CTAP 2.1 §12.5: the salts for this credential, evaluated with the CredRandom its UV state selects.
        let salts = request.hmacSecretSaltsByCredential[chosen.id.bytes] ?? request.hmacSecretSalts
        var output: HMACSecretOutput?
        if extensions.contains(.hmacSecret), let salts, let credRandom = secrets.credRandom {
            output = credRandom.outputs(for: salts, userVerified: userVerified)
        }
        return GetAssertionResult(
            credentialID: chosen.id.bytes, authenticatorData: authData, signature: signature,
            userHandle: chosen.userHandle.bytes, hmacSecretOutput: output)
    }

    /// The authenticator extension outputs: `uvm` when it was requested and the user verified.
    static func extensions(uvmRequested: Bool, _ verification: UserVerification) -> CBORMap {
        guard uvmRequested, let entry = verification.userVerificationMethodEntry else { return CBORMap() }
        return CBORMap(["uvm": .array([.array(entry.map { .unsigned(UInt64($0)) })])])
    }

    static func sign(_ data: [UInt8], with key: P256.Signing.PrivateKey) throws(AuthenticatorError) -> [UInt8] {
        do {
            return [UInt8](try key.signature(for: data).derRepresentation)
        } catch {
            throw AuthenticatorError(.storageFailure, "signing failed")
        }
    }
}

extension SoftwareAuthenticator {
    /// Runs `body` under this authenticator's lock and the store's, so counter and attempt
    /// updates are never lost to another thread or process.
    func serialized<Value>(_ body: () throws(AuthenticatorError) -> Value) throws(AuthenticatorError) -> Value {
        try counterLock.withLock { () throws(AuthenticatorError) -> Value in try store.exclusively(body) }
    }
}

extension CBORMap {
    /// The map, or `nil` when it has no entries (authenticator data then has no extensions).
    var nonEmpty: CBORMap? { count == 0 ? nil : self }
}

/// Serialises counter and attempt updates across copies of one authenticator.
final class CounterLock: Sendable {
    private let mutex = Mutex(())

    func withLock<T>(_ body: () throws(AuthenticatorError) -> T) throws(AuthenticatorError) -> T {
        try mutex.withLock { _ throws(AuthenticatorError) in try body() }
    }
}
