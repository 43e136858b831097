import Crypto
import Foundation
import UMFACBOR
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Builds a real `RegistrationResponseJSON`: client data, authenticator data, attestation
/// statement and signatures, with one knob for each thing a test may break.
struct RegistrationFactory {
    /// The attestation statement to produce.
    enum Attestation {
        case none
        /// `packed` signed by the credential key itself.
        case packedSelf
        /// `packed` with an `x5c` chain, signed by the signer's key.
        case packed(AttestationSigner)
        /// `fido-u2f`, signed by the signer's key.
        case fidoU2F(AttestationSigner)
        /// Any other format: the builder makes the statement from what was signed.
        case custom(format: String, StatementBuilder)
    }

    /// Makes a statement for a custom format.
    typealias StatementBuilder = (StatementInput) throws -> CBORMap

    /// What a statement builder gets: the signed data and the credential key.
    struct StatementInput {
        let authenticatorData: AuthenticatorData
        let clientDataHash: [UInt8]
        let credentialKey: TestKey
        /// `authenticatorData ‖ clientDataHash`.
        var signedData: [UInt8] { authenticatorData.rawBytes + clientDataHash }
    }

    var key: TestKey
    var challenge = Fixture.challenge
    var clientData: ClientDataOptions
    var rpID = Fixture.rpID
    var flags: AuthenticatorFlags = [.userPresent, .userVerified]
    var signCount: UInt32 = 0
    var aaguid = Fixture.aaguid
    var credentialID = Fixture.credentialID()
    /// The key put into the attested credential data; the credential key by default.
    var publicKeyMap: CBORMap?
    var extensions: CBORMap?
    var attestation: Attestation = .none
    /// The `fmt` to send instead of the attestation's own identifier.
    var formatOverride: String?
    /// The `alg` to write into a `packed` statement instead of the signer's.
    var algorithmOverride: COSEAlgorithm?
    /// Changes the statement after it was signed.
    var editStatement: (inout CBORMap) -> Void = { _ in }
    /// Sends these bytes as the attestation object instead.
    var attestationObjectOverride: [UInt8]?
    var transports: [AuthenticatorTransport]? = [.internal, .hybrid]

    init(key: TestKey, attestation: Attestation = .none) {
        self.key = key
        self.attestation = attestation
        self.clientData = ClientDataOptions(type: CollectedClientData.createType, challenge: Fixture.challenge)
    }

    /// A P-256 credential with `none` attestation.
    static func es256(_ attestation: Attestation = .none) -> RegistrationFactory {
        RegistrationFactory(key: .p256(P256.Signing.PrivateKey()), attestation: attestation)
    }

    /// The authenticator data, with the attested credential data for the credential.
    func authenticatorData() throws -> AuthenticatorData {
        let publicKey = try COSEKey(cbor: .map(publicKeyMap ?? key.coseMap))
        return AuthenticatorData(
            rpIDHash: Array(SHA256.hash(data: Array(rpID.utf8))), flags: flags, signCount: signCount,
            attestedCredentialData: AttestedCredentialData(
                aaguid: aaguid, credentialID: credentialID, publicKey: publicKey),
            extensions: extensions)
    }

    /// The response as the client would send it.
    func make() throws -> RegistrationResponseJSON {
        let clientDataJSON = clientData.bytes
        let attestationObject: [UInt8]
        if let attestationObjectOverride {
            attestationObject = attestationObjectOverride
        } else {
            let authData = try authenticatorData()
            let clientDataHash = Array(SHA256.hash(data: clientDataJSON))
            var (format, statement) = try self.statement(authData: authData, clientDataHash: clientDataHash)
            editStatement(&statement)
            attestationObject =
                AttestationObject(
                    format: formatOverride ?? format, statement: statement, authenticatorData: authData
                ).encoded
        }
        return RegistrationResponseJSON(
            rawId: Base64URLBytes(credentialID),
            response: .init(
                clientDataJSON: Base64URLBytes(clientDataJSON), attestationObject: Base64URLBytes(attestationObject),
                transports: transports))
    }

    private func statement(authData: AuthenticatorData, clientDataHash: [UInt8]) throws -> (String, CBORMap) {
        let signedData = authData.rawBytes + clientDataHash
        switch attestation {
        case .none:
            return ("none", CBORMap())
        case .packedSelf:
            let alg = algorithmOverride ?? key.algorithm
            return (
                "packed",
                CBORMap(["alg": CBORValue(Int64(alg.rawValue)), "sig": .byteString(try key.sign(signedData))])
            )
        case .packed(let signer):
            let alg = algorithmOverride ?? signer.key.algorithm
            return (
                "packed",
                CBORMap([
                    "alg": CBORValue(Int64(alg.rawValue)), "sig": .byteString(try signer.key.sign(signedData)),
                    "x5c": .array(try signer.x5c.map { .byteString($0) }),
                ])
            )
        case .custom(let format, let build):
            return (
                format,
                try build(
                    StatementInput(authenticatorData: authData, clientDataHash: clientDataHash, credentialKey: key))
            )
        case .fidoU2F(let signer):
            let point = Self.uncompressedPoint(try publicKeyMap ?? key.coseMap)
            let verificationData =
                [0x00] + authData.rpIDHash + clientDataHash + credentialID + point
            return (
                "fido-u2f",
                CBORMap([
                    "sig": .byteString(try signer.key.sign(verificationData)),
                    "x5c": .array(try signer.x5c.map { .byteString($0) }),
                ])
            )
        }
    }

    /// `04 || x || y` of an EC2 COSE key, as U2F signs it (just `04 || x` for an OKP key, which a
    /// verifier must refuse before it gets to the signature).
    private static func uncompressedPoint(_ map: CBORMap) -> [UInt8] {
        [0x04] + (map[-2]?.bytesValue ?? []) + (map[-3]?.bytesValue ?? [])
    }
}

extension RegistrationVerifier {
    /// Verifies a factory's response against the fixed test clock and the factory's challenge.
    func verify(
        _ factory: RegistrationFactory, userHandle: [UInt8] = Fixture.userHandle,
        userVerification: UserVerificationRequirement? = nil,
        isRegistered: (_ credentialID: [UInt8]) async throws -> Bool = { _ in false }
    ) async throws -> VerifiedRegistration {
        try await verify(
            try factory.make(), expectedChallenge: factory.challenge, userHandle: userHandle,
            userVerification: userVerification, at: Fixture.now, isRegistered: isRegistered)
    }
}
