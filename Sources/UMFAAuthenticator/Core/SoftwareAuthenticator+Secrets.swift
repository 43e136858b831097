import Crypto
import UMFAEncoding
import UMFAWebAuthnModel

/// PIN and password handling: the attempt counter, lockout and its reset, changing the
/// secret, and which credential answers a request.
extension SoftwareAuthenticator {
    /// Replaces the PIN or password on every credential it protects.
    ///
    /// Every such credential is opened with `old` before any is changed, so a wrong `old`
    /// changes nothing; locked credentials are left as they are (they open no more). The
    /// counters are re-read when saving, so a concurrent sign-in's counter is kept.
    /// - Returns: how many credentials were re-sealed.
    /// - Throws: `weakSecret` when `new` breaks ``SecretPolicy``; `userVerificationFailed`
    ///   when `old` is wrong (which counts as a failed attempt for the credential it was tried
    ///   on); `lockedOut` when every credential with this kind of secret is locked.
    @discardableResult
    public func changeSecret(_ kind: SecretKind, from old: String, to new: String) throws(AuthenticatorError) -> Int {
        try SecretPolicy.check(kind, new)
        var opened: [(CredentialSource, CredentialSecrets)] = []
        var locked = 0
        for credential in try store.allCredentials() where credential.protection.secretKind == kind {
            guard !isLocked(credential) else {
                locked += 1
                continue
            }
            let (secrets, _) = try unlock(credential, verification: .secret(kind, old))
            opened.append((credential, secrets))
        }
        if opened.isEmpty, locked > 0 { throw Self.lockedOutError }
        for (credential, secrets) in opened {
            let sealed = try sealer.seal(secrets, credentialID: credential.id.bytes, secret: (kind, new))
            try serialized { () throws(AuthenticatorError) in
                guard var fresh = try store.credential(id: credential.id.bytes) else { return }
                fresh.replaceSeal(with: sealed)
                try store.save(fresh)
            }
        }
        return opened.count
    }

    /// Whether a credential in `ids` lives here for `rpID`. A damaged one cannot sign, nor can
    /// a locked one, so neither counts: they must not block the credential that replaces them.
    /// Without UV a `userVerificationRequired` credential is not revealed (CTAP 2.1 §12.1).
    func holdsAny(of ids: [[UInt8]], rpID: String, userVerified: Bool) throws(AuthenticatorError) -> Bool {
        for id in ids {
            do throws(AuthenticatorError) {
                guard let credential = try store.credential(id: id), credential.rpID == rpID else { continue }
                if isLocked(credential) { continue }
                if !userVerified, credential.credentialProtection == .userVerificationRequired { continue }
                return true
            } catch  where error.code == .invalidData {
                continue
            }
        }
        return false
    }

    /// The credential that answers `request`: the newest allowed one for the RP, or with an
    /// empty allow list the newest discoverable one. Allowed credentials are looked up by id,
    /// so only a damaged allowed credential is reported, and only when no other can answer.
    ///
    /// CTAP 2.1 §12.1 `credProtect`, without UV: a `userVerificationRequired` credential is
    /// never chosen, and a `userVerificationOptionalWithCredentialIDList` one only by its id.
    func candidate(for request: GetAssertionRequest, userVerified: Bool) throws(AuthenticatorError)
        -> CredentialSource
    {
        var candidates: [CredentialSource] = []
        var damage: AuthenticatorError?
        if request.allowCredentialIDs.isEmpty {
            candidates = try store.credentials(rpID: request.rpID).filter(\.discoverable)
        } else {
            for id in request.allowCredentialIDs {
                do throws(AuthenticatorError) {
                    if let credential = try store.credential(id: id), credential.rpID == request.rpID {
                        candidates.append(credential)
                    }
                } catch  where error.code == .invalidData {
                    damage = damage ?? error
                }
            }
        }
        if !userVerified {
            let byID = !request.allowCredentialIDs.isEmpty
            candidates.removeAll { candidate in
                switch candidate.credentialProtection {
                case .userVerificationOptional: return false
                case .userVerificationOptionalWithCredentialIDList: return !byID
                case .userVerificationRequired: return true
                }
            }
        }
        guard let chosen = candidates.max(by: { $0.createdAt < $1.createdAt }) else {
            if let damage { throw damage }
            throw AuthenticatorError(.notAllowed, "no credential on this authenticator matches the request")
        }
        return chosen
    }

    /// Unseals a credential's key, enforcing that credential's own attempt counter for
    /// secrets: a wrong secret adds one to it, a right one sets it back to 0, and nothing else
    /// touches it, so a right secret for another credential buys no further guesses here.
    func unlock(_ credential: CredentialSource, verification: UserVerification) throws(AuthenticatorError)
        -> (CredentialSecrets, Bool)
    {
        guard let kind = credential.protection.secretKind else {
            guard let key = try sealer.open(credential, secret: nil) else {
                throw AuthenticatorError(.invalidData, "a stored credential does not open with this device's key")
            }
            return (key, verification.isVerification)
        }
        guard case .secret(let givenKind, let secret) = verification, givenKind == kind else {
            throw AuthenticatorError(.userVerificationFailed, "this passkey is protected by a \(kind.rawValue)")
        }
        return try serialized { () throws(AuthenticatorError) -> (CredentialSecrets, Bool) in
            // Re-read under the lock: the count (and the seal) another process left is the one that holds.
            guard var fresh = try store.credential(id: credential.id.bytes) else {
                throw AuthenticatorError(.notAllowed, "the credential was removed")
            }
            let failures = fresh.failedVerificationAttempts
            guard failures < maximumFailedAttempts else { throw Self.lockedOutError }
            guard let key = try sealer.open(fresh, secret: secret) else {
                fresh.failedVerificationAttempts = failures + 1
                try store.save(fresh)
                if failures + 1 >= maximumFailedAttempts { throw Self.lockedOutError }
                throw AuthenticatorError(
                    .userVerificationFailed,
                    "wrong \(kind.rawValue); \(maximumFailedAttempts - failures - 1) attempts left")
            }
            if failures != 0 {
                fresh.failedVerificationAttempts = 0
                try store.save(fresh)
            }
            return (key, true)
        }
    }

    /// A new seal of `key` at this authenticator's scrypt cost when `credential`'s seal is
    /// cheaper and the secret is at hand; `nil` otherwise, or when sealing fails (the old seal
    /// keeps working, so signing goes on).
    func strongerSeal(of credential: CredentialSource, secrets: CredentialSecrets, verification: UserVerification)
        -> SealedCredential?
    {
        guard sealer.isWeakerThanNew(credential.protection), case .secret(let kind, let secret) = verification,
            kind == credential.protection.secretKind
        else { return nil }
        return try? sealer.seal(secrets, credentialID: credential.id.bytes, secret: (kind, secret))
    }

    /// Whether too many wrong secrets in a row have locked `credential` for good.
    func isLocked(_ credential: CredentialSource) -> Bool {
        credential.protection.secretKind != nil && credential.failedVerificationAttempts >= maximumFailedAttempts
    }

    static var lockedOutError: AuthenticatorError {
        AuthenticatorError(
            .lockedOut, "too many wrong attempts; this passkey is locked until it is enrolled again")
    }

    /// Erases every locked credential before a new one is created, so enrolling again (which
    /// the relying party must allow) is the way back from a lockout. Nothing else is erased or
    /// reset: creating credentials never buys extra guesses for another one. When a damaged
    /// file keeps the store from listing its credentials, the locked ones stay (they open no
    /// more) and creating goes on.
    func eraseLockedCredentials() throws(AuthenticatorError) {
        try serialized { () throws(AuthenticatorError) in
            let credentials: [CredentialSource]
            do throws(AuthenticatorError) {
                credentials = try store.allCredentials()
            } catch  where error.code == .invalidData {
                return
            }
            for credential in credentials where isLocked(credential) {
                try store.delete(id: credential.id.bytes)
            }
        }
    }
}

extension CredentialSource {
    /// Takes a new seal of the same key and CredRandom (another secret, or a higher cost).
    mutating func replaceSeal(with sealed: SealedCredential) {
        sealedPrivateKey = Base64URLBytes(sealed.sealedKey)
        sealedCredRandom = sealed.sealedCredRandom.map(Base64URLBytes.init)
        protection = sealed.protection
    }
}
