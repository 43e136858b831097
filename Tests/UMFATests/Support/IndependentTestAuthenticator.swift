import Crypto
import Foundation
import Synchronization
import UMFAAuthenticator
import UMFAEncoding
import UMFAWebAuthnTypes

/// A second ``Authenticator``, written apart from UMFA's software authenticator to prove the
/// seam: P-256 keys from swift-crypto held in memory, and the client data JSON, authenticator
/// data, COSE key and `none` attestation object built here byte by byte (WebAuthn L3 §5.8.1,
/// §6.1, §6.5.4; RFC 9052 §7; RFC 8949 §3). It uses UMFA's wire types and nothing of
/// `SoftwareAuthenticator`, `WebAuthnClient` or their encoders.
///
/// Like a platform authenticator it verifies the user itself (UV is always set) and ignores
/// the SDK's PIN; it does ask the consent hooks, at the points WebAuthn L3 §6.3.2 names.
final class IndependentTestAuthenticator: Authenticator {
    struct Credential {
        let id: [UInt8]
        let key: P256.Signing.PrivateKey
        let rpID: String
        let userHandle: [UInt8]
        var signCount: UInt32
    }

    /// The AAGUID this authenticator reports: "independent test" in ASCII.
    static let aaguid = Array("independent test".utf8)

    let origin: String
    private let state = Mutex<(credentials: [Credential], creates: Int, gets: Int)>(([], 0, 0))

    init(origin: String) {
        self.origin = origin
    }

    var creates: Int { state.withLock { $0.creates } }
    var gets: Int { state.withLock { $0.gets } }
    var credentialIDs: [[UInt8]] { state.withLock { $0.credentials.map(\.id) } }

    func create(_ options: CreationOptionsJSON, context: AuthenticatorContext) async throws(PublicKeyCredentialError)
        -> RegistrationResponseJSON
    {
        let rpID = try checkedRPID(options.rp.id)
        guard options.pubKeyCredParams.contains(where: { $0.alg == .es256 }) else {
            throw .notSupported("only ES256")
        }
        let excluded = Set((options.excludeCredentials ?? []).map(\.id.bytes))
        if state.withLock({ $0.credentials.contains { $0.rpID == rpID && excluded.contains($0.id) } }) {
            switch await context.consent.excludeCredentialDescriptorConsent(rpId: rpID) {
            case .allow: throw .invalidState("a credential for this account is already here")
            case .reject: throw .notAllowed("declined")
            }
        }
        let asked = NewCredentialConsentContext(
            keyName: context.keyName ?? options.user.name, rpName: options.rp.name, rpId: options.rp.id,
            userName: options.user.name, userDisplayName: options.user.displayName)
        guard await context.consent.createNewCredentialConsent(asked) == .allow else {
            throw .notAllowed("declined")
        }
        let key = P256.Signing.PrivateKey()
        var id = [UInt8](repeating: 0, count: 16)
        for index in id.indices { id[index] = UInt8.random(in: 0...255) }
        let clientData = Self.clientDataJSON(
            type: "webauthn.create", challenge: options.challenge.bytes, origin: origin)
        let raw = key.publicKey.rawRepresentation  // x ‖ y
        // RFC 9052 §7 / RFC 9053 §7.1.1: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}.
        let coseKey: [UInt8] =
            [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + raw.prefix(32)
            + [0x22, 0x58, 0x20] + raw.suffix(32)
        // §6.1: rpIdHash ‖ flags (UP, UV, AT) ‖ signCount ‖ aaguid ‖ L ‖ credentialId ‖ key.
        let authenticatorData =
            Array(SHA256.hash(data: Array(rpID.utf8))) + [0x45, 0, 0, 0, 0] + Self.aaguid
            + [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id + coseKey
        // §6.5.4, `none` format: {"fmt": "none", "attStmt": {}, "authData": bytes}.
        let attestationObject: [UInt8] =
            [0xA3] + Self.text("fmt") + Self.text("none") + Self.text("attStmt") + [0xA0] + Self.text("authData")
            + Self.byteStringHeader(authenticatorData.count) + authenticatorData
        state.withLock {
            $0.credentials.append(
                Credential(id: id, key: key, rpID: rpID, userHandle: options.user.id.bytes, signCount: 0))
            $0.creates += 1
        }
        var extensions: [String: JSONValue] = [:]
        if options.extensions?["credProps"] == .bool(true) { extensions["credProps"] = .object(["rk": .bool(true)]) }
        return RegistrationResponseJSON(
            rawId: Base64URLBytes(id),
            response: AttestationResponseJSON(
                clientDataJSON: Base64URLBytes(clientData), attestationObject: Base64URLBytes(attestationObject),
                authenticatorData: Base64URLBytes(authenticatorData), transports: [.internal],
                publicKey: Base64URLBytes(Array(key.publicKey.derRepresentation)), publicKeyAlgorithm: -7),
            authenticatorAttachment: .platform, clientExtensionResults: extensions)
    }

    func get(_ options: RequestOptionsJSON, context: AuthenticatorContext) async throws(PublicKeyCredentialError)
        -> AuthenticationResponseJSON
    {
        let rpID = try checkedRPID(options.rpId)
        let allowed = Set((options.allowCredentials ?? []).map(\.id.bytes))
        let signed: (Credential, UInt32)? = state.withLock { state in
            guard
                let index = state.credentials.firstIndex(where: {
                    $0.rpID == rpID && (allowed.isEmpty || allowed.contains($0.id))
                })
            else { return nil }
            state.credentials[index].signCount += 1
            state.gets += 1
            return (state.credentials[index], state.credentials[index].signCount)
        }
        guard let (credential, count) = signed else { throw .notAllowed("no credential for this request") }
        let clientData = Self.clientDataJSON(type: "webauthn.get", challenge: options.challenge.bytes, origin: origin)
        let authenticatorData =
            Array(SHA256.hash(data: Array(rpID.utf8))) + [0x05]
            + [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try credential.key.signature(for: authenticatorData + Array(SHA256.hash(data: clientData)))
        } catch {
            throw .unknown("signing failed")
        }
        return AuthenticationResponseJSON(
            rawId: Base64URLBytes(credential.id),
            response: AssertionResponseJSON(
                clientDataJSON: Base64URLBytes(clientData), authenticatorData: Base64URLBytes(authenticatorData),
                signature: Base64URLBytes(Array(signature.derRepresentation)),
                userHandle: Base64URLBytes(credential.userHandle)),
            authenticatorAttachment: .platform)
    }

    /// The RP ID, which must be the origin's host or a registrable suffix of it (§5.1.3 step 8).
    private func checkedRPID(_ requested: String?) throws(PublicKeyCredentialError) -> String {
        guard let host = URLComponents(string: origin)?.host else { throw .security("no origin host") }
        let rpID = requested ?? host
        guard host == rpID || host.hasSuffix("." + rpID) else { throw .security("RP ID \(rpID) is not \(host)'s") }
        return rpID
    }

    /// §5.8.1.1 serialisation: type, challenge, origin, crossOrigin.
    static func clientDataJSON(type: String, challenge: [UInt8], origin: String) -> [UInt8] {
        let challenge = Data(challenge).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return Array(
            "{\"type\":\"\(type)\",\"challenge\":\"\(challenge)\",\"origin\":\"\(origin)\",\"crossOrigin\":false}".utf8)
    }

    /// A CBOR text string shorter than 24 bytes (major type 3).
    static func text(_ value: String) -> [UInt8] { [0x60 | UInt8(value.utf8.count)] + Array(value.utf8) }

    /// A CBOR byte-string head (major type 2) for `count` bytes.
    static func byteStringHeader(_ count: Int) -> [UInt8] {
        switch count {
        case ..<24: return [0x40 | UInt8(count)]
        case ..<256: return [0x58, UInt8(count)]
        default: return [0x59, UInt8(count >> 8), UInt8(count & 0xFF)]
        }
    }
}
