import Crypto
import Foundation
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Builds a real `AuthenticationResponseJSON` signed by a credential key, with one knob for
/// each thing a test may break.
struct AssertionFactory {
    var key: TestKey
    var credentialID: [UInt8]
    var challenge = Fixture.challenge
    var clientData: ClientDataOptions
    var rpID = Fixture.rpID
    var flags: AuthenticatorFlags = [.userPresent, .userVerified]
    var signCount: UInt32 = 1
    var extensions: CBORMap?
    var userHandle: [UInt8]? = Fixture.userHandle
    /// Signs with this key instead of the credential's.
    var signingKey: TestKey?
    /// Changes the client data after it was signed.
    var clientDataAfterSigning: [UInt8]?

    init(key: TestKey, credentialID: [UInt8]) {
        self.key = key
        self.credentialID = credentialID
        self.clientData = ClientDataOptions(type: CollectedClientData.getType, challenge: Fixture.challenge)
    }

    /// An assertion for the credential a registration factory created.
    init(for registration: RegistrationFactory) {
        self.init(key: registration.key, credentialID: registration.credentialID)
    }

    /// The response as the client would send it.
    func make() throws -> AuthenticationResponseJSON {
        let authData = AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(rpID.utf8))), flags: flags, signCount: signCount,
            extensions: extensions)
        let clientDataJSON = clientData.bytes
        let signature = try (signingKey ?? key).sign(authData.rawBytes + Array(SHA256.hash(data: clientDataJSON)))
        return AuthenticationResponseJSON(
            rawId: Base64URLBytes(credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(clientDataAfterSigning ?? clientDataJSON),
                authenticatorData: Base64URLBytes(authData.rawBytes), signature: Base64URLBytes(signature),
                userHandle: userHandle.map(Base64URLBytes.init)))
    }

    /// The record a relying party would hold for this credential.
    func record(
        signCount: UInt32 = 0, userHandle: [UInt8] = Fixture.userHandle, backupEligible: Bool = false,
        backupState: Bool = false, uvInitialized: Bool = false
    ) throws -> CredentialRecord {
        CredentialRecord(
            id: credentialID, publicKey: try key.coseKey, signCount: signCount, userHandle: userHandle,
            uvInitialized: uvInitialized, backupEligible: backupEligible, backupState: backupState)
    }

    /// A P-256 credential's assertion.
    static func es256() -> AssertionFactory {
        AssertionFactory(key: .p256(P256.Signing.PrivateKey()), credentialID: Fixture.credentialID())
    }
}

extension AuthenticationVerifier {
    /// Verifies a factory's assertion against `record` and the factory's challenge.
    func verify(
        _ factory: AssertionFactory, record: CredentialRecord, allowCredentials: [[UInt8]] = [],
        identifiedUserHandle: [UInt8]? = Fixture.userHandle, userVerification: UserVerificationRequirement? = nil
    ) throws -> VerifiedAuthentication {
        try verify(
            try factory.make(), expectedChallenge: factory.challenge, credential: record,
            allowCredentials: allowCredentials, identifiedUserHandle: identifiedUserHandle,
            userVerification: userVerification)
    }
}
