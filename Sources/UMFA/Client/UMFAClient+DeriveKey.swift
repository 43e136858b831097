import Foundation
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthnModel
import UMFAWebAuthnTypes

/// Keys derived from a passkey with the WebAuthn `prf` extension (L3 §10.1.4), for example to
/// encrypt the user's data end to end: the same passkey and salt always give the same key,
/// and nobody without the passkey (the server included) can compute it.
extension UMFAClient {
    /// The 32-byte PRF output of `userId`'s passkey on this device for `salt`.
    ///
    /// The device's authenticator makes an assertion with `prf.eval.first = salt` (hashed into
    /// the CTAP `hmac-secret` salt as L3 §10.1.4 says) after the user verifies as configured;
    /// it stays on the device and is never sent to the server. Use the output as key material,
    /// through HKDF for instance, not as a key shown or stored anywhere.
    ///
    /// ```swift
    /// let derived = try await client.deriveKey(salt: Array("notes-v1".utf8), userId: "alice")
    /// let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: derived.key),
    ///                                  info: Array("notes".utf8), outputByteCount: 32)
    /// ```
    ///
    /// CTAP keeps one secret for verified and one for unverified use, so the key changes with
    /// ``ZSMConfig/userVerification`` between `none` and a verifying method: keep it fixed.
    /// - Throws: `notEnrolled` when this device holds no passkey for `userId`, or holds one
    ///   made before PRF support (enroll again); the errors of ``authenticate(userId:)``'s
    ///   device side (`userVerificationFailed`, `lockedOut`, `cancelled`, `keyStoreDamaged`).
    public func deriveKey(salt: [UInt8], userId: String) async throws(ZSMError) -> DerivedKey {
        try config.validate()
        let device = try device()
        guard let entry = try device.enrollments.entry(applicationId: config.applicationId, userId: userId),
            let credentialID = Base64URL.decode(entry.credentialId)
        else { throw ZSMError(.notEnrolled, "this device holds no passkey for \(userId); enroll first") }
        try await checkBiometricBinding(of: entry, device: device)
        let context = context(try await verifyUser(userId: userId, creating: false), keyName: nil)
        // A local assertion: a fresh challenge nobody verifies, so no server is needed.
        let options = RequestOptionsJSON(
            challenge: Base64URLBytes(SoftwareAuthenticator.systemRandomBytes(32)),
            rpId: entry.rpId.isEmpty ? nil : entry.rpId,
            allowCredentials: [CredentialDescriptor(id: Base64URLBytes(credentialID))],
            extensions: ["prf": PRFResults.input(first: salt)])
        let response = try await gate.run(for: entry.credentialId) {
            () async throws(ZSMError) -> AuthenticationResponseJSON in
            try await device.get(options, context: context)
        }
        guard let results = PRFResults(clientExtensionResults: response.clientExtensionResults) else {
            throw ZSMError(
                .notEnrolled, "this passkey was made before PRF support and derives no keys; enroll again")
        }
        return DerivedKey(userId: userId, credentialId: entry.credentialId, key: results.first)
    }

    /// ``deriveKey(salt:userId:)`` with a completion: `data` holds `user_id`, `credential_id`
    /// and `key` (base64url).
    public func deriveKey(salt: [UInt8], userId: String, completion: @escaping Completion) {
        Task {
            do throws(ZSMError) {
                let derived = try await deriveKey(salt: salt, userId: userId)
                completion(derived.dictionary, metadata(traceId: nil), nil)
            } catch {
                completion(nil, metadata(traceId: error.traceId), error)
            }
        }
    }
}

/// What ``UMFAClient/deriveKey(salt:userId:)`` returns.
public struct DerivedKey: Sendable, Hashable {
    /// The user.
    public let userId: String
    /// The passkey that derived the key, base64url.
    public let credentialId: String
    /// The PRF output: 32 bytes of key material.
    public let key: [UInt8]

    /// The completion-handler form: `user_id`, `credential_id`, `key` (base64url).
    public var dictionary: [String: Any] {
        ["user_id": userId, "credential_id": credentialId, "key": Base64URL.encode(key)]
    }
}
