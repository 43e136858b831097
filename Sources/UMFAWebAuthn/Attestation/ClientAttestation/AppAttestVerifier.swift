import Crypto
import Foundation
import UMFACBOR
import X509

/// What an Apple App Attest attestation proved: which app, which key, which environment.
public struct AppAttestResult: Sendable, Equatable {
    /// `TEAMID.bundle.id`: the app ID whose SHA-256 is the authenticator data's `rpIdHash`.
    public let appID: String
    /// The key id: SHA-256 of the attested P-256 public key (uncompressed point).
    public let keyID: [UInt8]
    /// The attested public key, uncompressed (`04 ‖ x ‖ y`).
    public let publicKey: [UInt8]
    /// Whether the key was made by a development build (`appattestdevelop`).
    public let development: Bool
}

/// Verifies an Apple App Attest attestation object (`fmt` `apple-appattest`), as Apple's
/// "Validating apps that connect to your server" lists the steps: the certificate chain to
/// Apple's App Attestation root, the nonce, the key, the app ID, the counter and the AAGUID.
///
/// `clientDataHash` is what the app passed to `attestKey`: SHA-256 of the server's challenge.
public struct AppAttestVerifier: Sendable {
    /// The attestation statement format.
    public static let format = "apple-appattest"
    /// The AAGUID of keys made by production builds: `appattest` and seven zero bytes.
    static let productionAAGUID = Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
    /// The AAGUID of keys made by development builds.
    static let developmentAAGUID = Array("appattestdevelop".utf8)

    /// The roots a chain may end at (``WellKnownRoot/appleAppAttestationRoot`` in production).
    public let anchors: AttestationTrustAnchors
    /// Whether keys of development builds are accepted.
    public let allowDevelopment: Bool

    /// Creates a verifier.
    public init(anchors: AttestationTrustAnchors, allowDevelopment: Bool = true) {
        self.anchors = anchors
        self.allowDevelopment = allowDevelopment
    }

    static func refuse(_ reason: String) -> WebAuthnError {
        WebAuthnError(.invalidAttestation, "apple-appattest: \(reason)")
    }

    /// Checks `attestationObject` for one of `appIDs`, at `time`.
    /// - Parameters:
    ///   - attestationObject: the CBOR attestation object the app sent (`fmt` `apple-appattest`).
    ///   - clientDataHash: the SHA-256 of the client data the app attested, whose nonce binds it.
    ///   - appIDs: the accepted app ids (`<team id>.<bundle id>`), one of which the key must belong to.
    ///   - keyID: the key id the app names, when it sends one.
    ///   - time: the time the certificates must be valid at.
    public func verify(
        attestationObject: [UInt8], clientDataHash: [UInt8], appIDs: [String], keyID: [UInt8]? = nil, at time: Date
    ) async throws(WebAuthnError) -> AppAttestResult {
        let object = try AttestationObject(bytes: attestationObject)
        guard object.format == Self.format else { throw Self.refuse("fmt is \(object.format), not apple-appattest") }
        guard let certificates = try AttestationStatementFields.certificates(object.statement, format: Self.format),
            let credCert = certificates.first
        else { throw Self.refuse("x5c is missing") }
        let authenticatorData = object.authenticatorData
        guard let credential = authenticatorData.attestedCredentialData else {
            throw Self.refuse("the authenticator data has no attested credential")
        }
        // Step 1: credCert and the intermediates chain to the App Attestation root.
        let trust = await anchors.chainTrust(certificates, format: Self.format, at: time)
        guard case .trusted = trust else {
            if case .untrusted(let reason) = trust { throw Self.refuse(reason) }
            throw Self.refuse("the certificate chain is not trusted")
        }
        // Steps 2–4: nonce = SHA-256(authData ‖ clientDataHash), held in credCert's extension.
        let nonce = Array(SHA256.hash(data: authenticatorData.rawBytes + clientDataHash))
        guard let nonceExtension = credCert.extensions[oid: AppleAttestation.nonceExtension] else {
            throw Self.refuse("the certificate has no nonce extension (1.2.840.113635.100.8.2)")
        }
        let certified: [UInt8]
        do {
            certified = try AppleAttestation.nonce(in: nonceExtension.value)
        } catch {
            throw Self.refuse("the nonce extension is malformed")
        }
        guard certified == nonce else {
            throw Self.refuse("the certificate's nonce is not SHA-256 of authenticatorData and clientDataHash")
        }
        // Step 5: the key id is SHA-256 of credCert's public key; it matches the one named.
        guard let key = P256.Signing.PublicKey(credCert.publicKey) else {
            throw Self.refuse("the certificate's key is not P-256")
        }
        let publicKey = Array(key.x963Representation)
        let computedKeyID = Array(SHA256.hash(data: publicKey))
        if let keyID, keyID != computedKeyID { throw Self.refuse("the key id is not the attested key's") }
        // Step 6: rpIdHash is SHA-256 of an accepted app ID.
        guard
            let appID = appIDs.first(where: {
                Array(SHA256.hash(data: Array($0.utf8))) == authenticatorData.rpIDHash
            })
        else { throw Self.refuse("the app is not one this application accepts (rpIdHash)") }
        // Step 7: a new key has signed nothing yet.
        guard authenticatorData.signCount == 0 else { throw Self.refuse("the counter is not 0") }
        // Step 8: the AAGUID names the environment.
        let development: Bool
        switch credential.aaguid {
        case Self.productionAAGUID: development = false
        case Self.developmentAAGUID where allowDevelopment: development = true
        case Self.developmentAAGUID: throw Self.refuse("keys of development builds are not accepted")
        default: throw Self.refuse("the AAGUID is neither appattest nor appattestdevelop")
        }
        // Step 9: the credential id is the key id.
        guard credential.credentialID == computedKeyID else {
            throw Self.refuse("the credential id is not SHA-256 of the attested key")
        }
        return AppAttestResult(appID: appID, keyID: computedKeyID, publicKey: publicKey, development: development)
    }
}
