import ArgumentParser
import Foundation
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// `umfa verify authentication`: §7.2 over an `AuthenticationResponseJSON` file.
struct VerifyAuthenticationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authentication",
        abstract: "Verify an AuthenticationResponseJSON (WebAuthn L3 §7.2) against a stored public key.",
        discussion: """
            Without --user-handle the credential's owner is not known offline, so the user-handle \
            check of §7.2 step 6 is skipped; without --backup-eligible the BE flag is not compared.
            """
    )

    @Option(help: "A file holding the AuthenticationResponseJSON.")
    var response: String

    @OptionGroup var relyingParty: RelyingPartyOptions

    @Option(
        name: .customLong("public-key"), parsing: .unconditional, help: "The credential's COSE public key (base64url).")
    var publicKey: String

    @Option(name: .customLong("sign-count"), help: "The stored sign count.")
    var signCount: UInt32 = 0

    @Option(
        name: .customLong("user-handle"), parsing: .unconditional,
        help: "The owner's user handle (base64url), checked against the response.")
    var userHandle: String?

    @Option(name: .customLong("backup-eligible"), help: "The BE flag stored at registration (true or false).")
    var backupEligible: Bool?

    @Option(
        name: .customLong("allow-credential"), parsing: .unconditionalSingleValue,
        help: "A credential id (base64url) from allowCredentials; repeatable.")
    var allowCredential: [String] = []

    func run() async throws {
        let assertion = try CommandIO.decodeResponse(
            AuthenticationResponseJSON.self, from: response, what: "AuthenticationResponseJSON")
        let challenge = try CommandIO.base64URL(relyingParty.challenge, option: "--challenge")
        let keyBytes = try CommandIO.base64URL(publicKey, option: "--public-key")
        let policy = RelyingPartyPolicy(
            rpID: relyingParty.rpID,
            origins: OriginPolicy(
                allowed: Set(relyingParty.origin),
                allowCrossOrigin: relyingParty.allowCrossOrigin || !relyingParty.topOrigin.isEmpty,
                allowedTopOrigins: Set(relyingParty.topOrigin)),
            userVerification: relyingParty.requireUV ? .required : .preferred)
        do {
            let key = try COSEKey(bytes: keyBytes)
            let owner = try userHandle.map { try CommandIO.base64URL($0, option: "--user-handle") }
            let receivedHandle = assertion.response.userHandle?.bytes ?? []
            let flags = (try? AuthenticatorData(bytes: assertion.response.authenticatorData.bytes))?.flags ?? []
            let record = CredentialRecord(
                id: assertion.rawId.bytes, publicKey: key, signCount: signCount,
                userHandle: owner ?? receivedHandle, uvInitialized: false,
                backupEligible: backupEligible ?? flags.isBackupEligible, backupState: false)
            let result = try AuthenticationVerifier(policy: policy).verify(
                assertion, expectedChallenge: challenge, credential: record,
                allowCredentials: try allowCredential.map { try CommandIO.base64URL($0, option: "--allow-credential") },
                identifiedUserHandle: owner ?? receivedHandle)
            try CommandIO.printJSON(AuthenticationOutput(result))
        } catch let error as WebAuthnError {
            try CommandIO.printJSON(FailureOutput(error))
            CommandIO.printError(error.description)
            throw ExitCode(1)
        }
    }
}

/// What a valid assertion prints.
struct AuthenticationOutput: Encodable {
    let valid = true
    let credentialId: String
    let signCount: UInt32
    let userVerified: Bool
    let cloneWarning: Bool
    let userHandle: String?
    let flags: FlagsOutput

    enum CodingKeys: String, CodingKey {
        case valid
        case credentialId = "credential_id"
        case signCount = "sign_count"
        case userVerified = "user_verified"
        case cloneWarning = "clone_warning"
        case userHandle = "user_handle"
        case flags
    }

    init(_ result: VerifiedAuthentication) {
        credentialId = Base64URL.encode(result.record.id)
        signCount = result.authenticatorData.signCount
        userVerified = result.userVerified
        cloneWarning = result.cloneWarning
        userHandle = result.record.userHandle.isEmpty ? nil : Base64URL.encode(result.record.userHandle)
        flags = FlagsOutput(result.authenticatorData.flags)
    }
}
