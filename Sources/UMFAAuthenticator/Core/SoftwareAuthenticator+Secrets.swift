import Crypto
import UMFAWebAuthn

/// PIN and password handling: the attempt counter, lockout and its reset, changing the
/// secret, and which credential answers a request.
extension SoftwareAuthenticator {
    /// Replaces the PIN or password on every credential it protects.
    ///
    /// Every such credential is opened with `old` before any is changed, so a wrong `old`
    /// changes nothing; the counters are re-read when saving, so a concurrent sign-in's
    /// counter is kept.
    /// - Returns: how many credentials were re-sealed.
    /// - Throws: `userVerificationFailed` when `old` is wrong (which counts as a failed attempt).
    @discardableResult
    public func changeSecret(_ kind: SecretKind, from old: String, to new: String) throws(AuthenticatorError) -> Int {
        guard !new.isEmpty else {
            throw AuthenticatorError(.userVerificationFailed, "the new \(kind.rawValue) is empty")
        }
        var opened: [(CredentialSource, P256.Signing.PrivateKey)] = []
        for credential in try store.allCredentials() where credential.protection.secretKind == kind {
            let (key, _) = try unlock(credential, verification: .secret(kind, old))
            opened.append((credential, key))
        }
        for (credential, key) in opened {
            let (sealed, protection) = try sealer.seal(key, credentialID: credential.id.bytes, secret: (kind, new))
            try serialized { () throws(AuthenticatorError) in
                guard var fresh = try store.credential(id: credential.id.bytes) else { return }
                fresh.sealedPrivateKey = Base64URLBytes(sealed)
                fresh.protection = protection
                try store.save(fresh)
            }
        }
        return opened.count
    }

    /// Whether a credential in `ids` lives here for `rpID`. A damaged one cannot sign, nor can
    /// a locked one, so neither counts: they must not block the credential that replaces them.
    func holdsAny(of ids: [[UInt8]], rpID: String, ignoringSecretProtected: Bool) throws(AuthenticatorError) -> Bool {
        for id in ids {
            do throws(AuthenticatorError) {
                guard let credential = try store.credential(id: id), credential.rpID == rpID else { continue }
                if ignoringSecretProtected, credential.protection.secretKind != nil { continue }
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
    func candidate(for request: GetAssertionRequest) throws(AuthenticatorError) -> CredentialSource {
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
        guard let chosen = candidates.max(by: { $0.createdAt < $1.createdAt }) else {
            if let damage { throw damage }
            throw AuthenticatorError(.notAllowed, "no credential on this authenticator matches the request")
        }
        return chosen
    }

    /// Unseals a credential's key, enforcing the attempt counter for secrets.
    func unlock(_ credential: CredentialSource, verification: UserVerification) throws(AuthenticatorError)
        -> (P256.Signing.PrivateKey, Bool)
    {
        guard let kind = credential.protection.secretKind else {
            guard
                let key = try sealer.open(
                    credential.sealedPrivateKey.bytes, credentialID: credential.id.bytes,
                    protection: credential.protection, secret: nil)
            else {
                throw AuthenticatorError(.invalidData, "a stored credential does not open with this device's key")
            }
            return (key, verification.isVerification)
        }
        guard case .secret(let givenKind, let secret) = verification, givenKind == kind else {
            throw AuthenticatorError(.userVerificationFailed, "this passkey is protected by a \(kind.rawValue)")
        }
        return try serialized { () throws(AuthenticatorError) -> (P256.Signing.PrivateKey, Bool) in
            let failures = try store.failedVerificationAttempts()
            guard failures < maximumFailedAttempts else {
                throw AuthenticatorError(
                    .lockedOut,
                    "too many wrong attempts; this authenticator is locked until a passkey is enrolled again")
            }
            guard
                let key = try sealer.open(
                    credential.sealedPrivateKey.bytes, credentialID: credential.id.bytes,
                    protection: credential.protection, secret: secret)
            else {
                try store.setFailedVerificationAttempts(failures + 1)
                if failures + 1 >= maximumFailedAttempts {
                    throw AuthenticatorError(
                        .lockedOut,
                        "too many wrong attempts; this authenticator is locked until a passkey is enrolled again")
                }
                throw AuthenticatorError(
                    .userVerificationFailed,
                    "wrong \(kind.rawValue); \(maximumFailedAttempts - failures - 1) attempts left")
            }
            if failures != 0 { try store.setFailedVerificationAttempts(0) }
            return (key, true)
        }
    }

    /// The reset after a lockout: when a new credential is created while the authenticator
    /// is locked, every credential the counter protected is erased (none can be used again)
    /// and the counter starts over, so enrolling again (which the relying party must allow)
    /// is the way back. Before the lockout nothing is erased or reset, so creating
    /// credentials never buys extra guesses.
    func eraseLockedCredentials() throws(AuthenticatorError) {
        try serialized { () throws(AuthenticatorError) in
            guard try store.failedVerificationAttempts() >= maximumFailedAttempts else { return }
            for credential in try store.allCredentials() where credential.protection.secretKind != nil {
                try store.delete(id: credential.id.bytes)
            }
            try store.setFailedVerificationAttempts(0)
        }
    }
}
