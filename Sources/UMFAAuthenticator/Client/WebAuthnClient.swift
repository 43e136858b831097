import Crypto
import UMFAEncoding
import UMFAWebAuthnModel
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
    /// Extensions: `prf` reports `enabled` (and `results` for `eval`, CTAP `hmac-secret-mc`),
    /// `credProps` reports `rk`, `credentialProtectionPolicy` sets the credential's `credProtect` level.
    /// - Parameter verification: how the user was verified; a PIN or password also seals the key.
    /// - Throws: ``AuthenticatorError`` `notSupported` for `prf.evalByCredential` (L3 §10.1.4),
    ///   `notAllowed` for an enforced protection policy the authenticator does not support.
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
        // L3 §10.1.4 prf at registration: evalByCredential is not allowed; eval goes to hmac-secret-mc.
        let prf = try ClientExtensions.PRFInput(options.extensions)
        if let prf, !prf.evalByCredential.isEmpty {
            throw AuthenticatorError(.notSupported, "prf.evalByCredential is not allowed at registration")
        }
        let prfSalts = try prf?.eval.map { (values) throws(AuthenticatorError) in try values.salts }
        // CTAP 2.1 §12.1: an enforced policy above level 1 that the authenticator lacks creates nothing.
        let (policy, enforcePolicy) = ClientExtensions.credentialProtection(options.extensions)
        if let policy, enforcePolicy, policy != .userVerificationOptional,
            !authenticator.extensions.contains(.credentialProtection)
        {
            throw AuthenticatorError(.notAllowed, "this authenticator does not support credential protection")
        }
        let result = try authenticator.makeCredential(
            MakeCredentialRequest(
                clientDataHash: Array(SHA256.hash(data: clientData)), rpID: rpID, user: options.user,
                algorithms: options.pubKeyCredParams.filter { $0.type == .publicKey }.map(\.alg),
                excludeCredentialIDs: (options.excludeCredentials ?? []).map(\.id.bytes),
                requireResidentKey: selection?.residentKey == .required || selection?.residentKey == .preferred
                    || selection?.requireResidentKey == true,
                requireUserVerification: selection?.userVerification == .required,
                attestation: wantsAttestation ? .packedSelf : .none,
                userVerificationMethodRequested: options.extensions?["uvm"] == .bool(true),
                hmacSecretRequested: prf != nil, hmacSecretSalts: prfSalts, credentialProtection: policy),
            verification: verification)
        var outputs: [String: JSONValue] = [:]
        if options.extensions?["credProps"] == .bool(true) {
            outputs["credProps"] = .object(["rk": .bool(result.discoverable)])
        }
        if prf != nil {
            var output: [String: JSONValue] = ["enabled": .bool(result.hmacSecret)]
            if let first = result.hmacSecretOutput { output["results"] = ClientExtensions.results(first) }
            outputs["prf"] = .object(output)
        }
        return RegistrationResponseJSON(
            rawId: Base64URLBytes(result.credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(clientData),
                attestationObject: Base64URLBytes(result.attestationObject.encoded),
                authenticatorData: Base64URLBytes(result.attestationObject.authenticatorData.rawBytes),
                transports: [.internal], publicKey: Base64URLBytes(result.publicKey.subjectPublicKeyInfo),
                publicKeyAlgorithm: result.publicKey.algorithm.rawValue),
            authenticatorAttachment: .platform, clientExtensionResults: outputs)
    }

    /// `navigator.credentials.get()`: signs the challenge with a matching credential.
    ///
    /// With `prf`, `clientExtensionResults.prf.results` holds `first` (and `second`) as base64url
    /// when the credential supports it (L3 §10.1.4), else `prf` is empty.
    /// - Parameter verification: how the user was verified; a PIN-protected passkey needs its PIN.
    /// - Throws: ``AuthenticatorError`` `notSupported` for `prf.evalByCredential` without
    ///   `allowCredentials`, `invalidData` for a key of it that is no allowed credential id.
    public func get(_ options: RequestOptionsJSON, verification: UserVerification) throws(AuthenticatorError)
        -> AuthenticationResponseJSON
    {
        guard let rpID = RelyingPartyIDCheck.effectiveRPID(requested: options.rpId, origin: origin) else {
            throw AuthenticatorError(.notAllowed, "RP ID \"\(options.rpId ?? "")\" is not valid for origin \(origin)")
        }
        let clientData = ClientDataBuilder.json(
            type: CollectedClientData.getType, challenge: options.challenge.bytes, origin: origin, topOrigin: topOrigin)
        let allowed = (options.allowCredentials ?? []).map(\.id.bytes)
        let prf = try ClientExtensions.PRFInput(options.extensions)
        var saltsByCredential: [[UInt8]: HMACSecretSalts] = [:]
        // L3 §10.1.4 prf at authentication, steps 1-2: evalByCredential needs an allow list
        // and names only credentials in it.
        if let prf, !prf.evalByCredential.isEmpty {
            guard !allowed.isEmpty else {
                throw AuthenticatorError(.notSupported, "prf.evalByCredential needs allowCredentials")
            }
            for (key, values) in prf.evalByCredential {
                guard let id = Base64URL.decode(key), !id.isEmpty, allowed.contains(id) else {
                    throw AuthenticatorError(.invalidData, "prf.evalByCredential names no allowed credential")
                }
                saltsByCredential[id] = try values.salts
            }
        }
        let result = try authenticator.getAssertion(
            GetAssertionRequest(
                clientDataHash: Array(SHA256.hash(data: clientData)), rpID: rpID,
                allowCredentialIDs: allowed, requireUserVerification: options.userVerification == .required,
                userVerificationMethodRequested: options.extensions?["uvm"] == .bool(true),
                hmacSecretSalts: try prf?.eval.map { (values) throws(AuthenticatorError) in try values.salts },
                hmacSecretSaltsByCredential: saltsByCredential),
            verification: verification)
        var outputs: [String: JSONValue] = [:]
        if prf != nil {
            // Step 3: an empty output, with results when the authenticator evaluated the salts.
            outputs["prf"] = .object(result.hmacSecretOutput.map { ["results": ClientExtensions.results($0)] } ?? [:])
        }
        return AuthenticationResponseJSON(
            rawId: Base64URLBytes(result.credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(clientData),
                authenticatorData: Base64URLBytes(result.authenticatorData.rawBytes),
                signature: Base64URLBytes(result.signature), userHandle: Base64URLBytes(result.userHandle)),
            authenticatorAttachment: .platform, clientExtensionResults: outputs)
    }
}
