import Crypto
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Plays the browser's part of WebAuthn for a ``SoftwareAuthenticator``: checks the RP ID
/// against the origin, writes the client data, calls the authenticator and returns the
/// `RegistrationResponseJSON` / `AuthenticationResponseJSON` a relying party verifies.
public struct WebAuthnClient: Sendable {
    /// The caller's origin, web (`https://app.example.com`) or native (`ios:bundle-id:…`).
    public var origin: String
    /// The top-level origin when the caller runs in a cross-origin iframe.
    public var topOrigin: String?
    /// The authenticator.
    public var authenticator: SoftwareAuthenticator

    /// Creates a client for `origin` using `authenticator`.
    public init(origin: String, topOrigin: String? = nil, authenticator: SoftwareAuthenticator) {
        self.origin = origin
        self.topOrigin = topOrigin
        self.authenticator = authenticator
    }

    /// `navigator.credentials.create()` for a virtual authenticator that declares UV itself.
    ///
    /// - Parameter userVerified: `true` simulates a verified user (``PlatformVerificationMethod/simulated``).
    public func create(_ options: CreationOptionsJSON, userVerified: Bool) throws(AuthenticatorError)
        -> RegistrationResponseJSON
    {
        try create(options, verification: userVerified ? .confirmedByPlatform(.simulated) : .none)
    }

    /// `navigator.credentials.get()` for a virtual authenticator that declares UV itself.
    ///
    /// - Parameter userVerified: `true` simulates a verified user (``PlatformVerificationMethod/simulated``).
    public func get(_ options: RequestOptionsJSON, userVerified: Bool) throws(AuthenticatorError)
        -> AuthenticationResponseJSON
    {
        try get(options, verification: userVerified ? .confirmedByPlatform(.simulated) : .none)
    }

    /// `navigator.credentials.create()`: registers a new credential.
    ///
    /// - Parameter verification: how the user was verified; a PIN or password also seals the key.
    public func create(_ options: CreationOptionsJSON, verification: UserVerification) throws(AuthenticatorError)
        -> RegistrationResponseJSON
    {
        guard let rpID = RelyingPartyIDCheck.effectiveRPID(requested: options.rp.id, origin: origin) else {
            throw AuthenticatorError(.notAllowed, "RP ID \"\(options.rp.id ?? "")\" is not valid for origin \(origin)")
        }
        let clientData = ClientDataBuilder.json(
            type: CollectedClientData.createType, challenge: options.challenge.bytes, origin: origin,
            topOrigin: topOrigin)
        let selection = options.authenticatorSelection
        let wantsAttestation = options.attestation.map { $0 != .none } ?? false
        let result = try authenticator.makeCredential(
            MakeCredentialRequest(
                clientDataHash: Array(SHA256.hash(data: clientData)), rpID: rpID, user: options.user,
                algorithms: options.pubKeyCredParams.filter { $0.type == .publicKey }.map(\.alg),
                excludeCredentialIDs: (options.excludeCredentials ?? []).map(\.id.bytes),
                requireResidentKey: selection?.residentKey == .required || selection?.residentKey == .preferred
                    || selection?.requireResidentKey == true,
                requireUserVerification: selection?.userVerification == .required,
                attestation: wantsAttestation ? .packedSelf : .none,
                userVerificationMethodRequested: options.extensions?["uvm"] == .bool(true)),
            verification: verification)
        return RegistrationResponseJSON(
            rawId: Base64URLBytes(result.credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(clientData),
                attestationObject: Base64URLBytes(result.attestationObject.encoded),
                authenticatorData: Base64URLBytes(result.attestationObject.authenticatorData.rawBytes),
                transports: [.internal], publicKey: Base64URLBytes(result.publicKey.subjectPublicKeyInfo),
                publicKeyAlgorithm: result.publicKey.algorithm.rawValue),
            authenticatorAttachment: .platform, clientExtensionResults: [:])
    }

    /// `navigator.credentials.get()`: signs the challenge with a matching credential.
    ///
    /// - Parameter verification: how the user was verified; a PIN-protected passkey needs its PIN.
    public func get(_ options: RequestOptionsJSON, verification: UserVerification) throws(AuthenticatorError)
        -> AuthenticationResponseJSON
    {
        guard let rpID = RelyingPartyIDCheck.effectiveRPID(requested: options.rpId, origin: origin) else {
            throw AuthenticatorError(.notAllowed, "RP ID \"\(options.rpId ?? "")\" is not valid for origin \(origin)")
        }
        let clientData = ClientDataBuilder.json(
            type: CollectedClientData.getType, challenge: options.challenge.bytes, origin: origin, topOrigin: topOrigin)
        let result = try authenticator.getAssertion(
            GetAssertionRequest(
                clientDataHash: Array(SHA256.hash(data: clientData)), rpID: rpID,
                allowCredentialIDs: (options.allowCredentials ?? []).map(\.id.bytes),
                requireUserVerification: options.userVerification == .required,
                userVerificationMethodRequested: options.extensions?["uvm"] == .bool(true)),
            verification: verification)
        return AuthenticationResponseJSON(
            rawId: Base64URLBytes(result.credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(clientData),
                authenticatorData: Base64URLBytes(result.authenticatorData.rawBytes),
                signature: Base64URLBytes(result.signature), userHandle: Base64URLBytes(result.userHandle)),
            authenticatorAttachment: .platform, clientExtensionResults: [:])
    }
}
