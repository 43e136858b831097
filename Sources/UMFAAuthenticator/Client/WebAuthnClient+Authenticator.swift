import UMFAWebAuthnModel
import UMFAWebAuthnTypes

/// The software authenticator behind the ``Authenticator`` protocol: the client checks the RP
/// ID, asks the consent hooks where WebAuthn L3 §6.3.2 asks the user, then creates or signs
/// with the PIN, password or platform check of the context.
extension WebAuthnClient: Authenticator {
    /// `navigator.credentials.create()` with the user's consent.
    ///
    /// - Throws: ``PublicKeyCredentialError`` `security` for an RP ID not valid for ``origin``;
    ///   `invalidState` when an excluded credential is here and the user lets it be reported,
    ///   `notAllowed` when they do not; `notAllowed` when they decline the new credential; the
    ///   authenticator's refusals as ``PublicKeyCredentialError/init(_:)`` maps them.
    public func create(_ options: CreationOptionsJSON, context: AuthenticatorContext)
        async throws(PublicKeyCredentialError)
        -> RegistrationResponseJSON
    {
        guard let rpID = RelyingPartyIDCheck.effectiveRPID(requested: options.rp.id, origin: origin) else {
            throw .security("RP ID \"\(options.rp.id ?? "")\" is not valid for origin \(origin)")
        }
        // §6.3.2 step 3: an excluded credential here needs the user's consent to be reported
        // (InvalidStateError); without it the operation ends as NotAllowedError.
        let excluded: Bool
        do throws(AuthenticatorError) {
            excluded = try authenticator.holdsAny(
                of: (options.excludeCredentials ?? []).map(\.id.bytes), rpID: rpID,
                userVerified: context.userVerification.isVerification)
        } catch {
            throw PublicKeyCredentialError(error)
        }
        if excluded {
            switch await context.consent.excludeCredentialDescriptorConsent(rpId: rpID) {
            case .allow: throw .invalidState("this authenticator already holds a credential for this account")
            case .reject: throw .notAllowed("the user declined")
            }
        }
        // §6.3.2 step 6: the user's consent before the key pair is made.
        let asked = NewCredentialConsentContext(
            keyName: context.keyName ?? options.user.name, rpName: options.rp.name, rpId: options.rp.id,
            userName: options.user.name, userDisplayName: options.user.displayName)
        guard await context.consent.createNewCredentialConsent(asked) == .allow else {
            throw .notAllowed("the user declined to create a passkey")
        }
        do throws(AuthenticatorError) {
            return try create(options, verification: context.userVerification)
        } catch {
            throw PublicKeyCredentialError(error)
        }
    }

    /// `navigator.credentials.get()`.
    ///
    /// - Throws: ``PublicKeyCredentialError`` `security` for an RP ID not valid for ``origin``; the
    ///   authenticator's refusals as ``PublicKeyCredentialError/init(_:)`` maps them (`notAllowed` when
    ///   no credential matches).
    public func get(_ options: RequestOptionsJSON, context: AuthenticatorContext) async throws(PublicKeyCredentialError)
        -> AuthenticationResponseJSON
    {
        guard RelyingPartyIDCheck.effectiveRPID(requested: options.rpId, origin: origin) != nil else {
            throw .security("RP ID \"\(options.rpId ?? "")\" is not valid for origin \(origin)")
        }
        do throws(AuthenticatorError) {
            return try get(options, verification: context.userVerification)
        } catch {
            throw PublicKeyCredentialError(error)
        }
    }
}
