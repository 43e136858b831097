import Crypto
import Foundation
import UMFAAuthenticator
import UMFAEncoding
import UMFAJOSE
import UMFAWebAuthnModel

/// The device keys of out-of-band enrollments (docs/contract.md §7): one P-256 key per application
/// and user, registered with the passkey at `dispatch/complete`, whose signatures (device
/// proofs) let the device fetch its pending approvals. Each is kept in `device-keys/` of the
/// storage location, sealed with AES-GCM under a key the ``DeviceKeyProvider`` derives, as the
/// passkeys are.
struct DeviceSigningKeys: Sendable {
    let directory: URL
    private let config: ZSMConfig

    /// One stored key.
    struct Entry: Codable {
        var credentialId: String
        var sealed: Base64URLBytes
    }

    /// What seals device keys: a derivation of its own, apart from every passkey's.
    static let sealingMaterial = Array("umfa device signing key v1".utf8)
    private let sealingMaterial: [UInt8]

    /// The keys of `config`'s storage location, in `folder`, sealed under a key derived from
    /// `sealingMaterial` (each kind of key its own: device keys, DPoP keys).
    init(config: ZSMConfig, folder: String = "device-keys", sealingMaterial: [UInt8] = Self.sealingMaterial) {
        directory = config.storageLocation.appendingPathComponent(folder, isDirectory: true)
        self.config = config
        self.sealingMaterial = sealingMaterial
    }

    /// The device's key provider, opened when a device key is sealed or opened.
    private func provider() throws(ZSMError) -> any DeviceKeyProvider {
        if let given = config.deviceKeyProvider { return given }
        // The storage location may be new: a DPoP key can be its first file.
        try? FileManager.default.createDirectory(
            at: config.storageLocation, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do throws(AuthenticatorError) {
            return try DeviceKeyFile(directory: config.storageLocation)
        } catch {
            throw ZSMError(.keyStoreDamaged, error.message)
        }
    }

    /// A device key's public JWK, as `dispatch/complete` takes it.
    static func publicJWK(_ key: P256.Signing.PrivateKey) -> JSONValue {
        .object(jwkMembers(key).mapValues(JSONValue.string))
    }

    /// The members of a P-256 key's public JWK (`kty`, `crv`, `x`, `y`).
    static func jwkMembers(_ key: P256.Signing.PrivateKey) -> [String: String] {
        let jwk = JWK(key.publicKey)
        return ["kty": jwk.kty ?? "", "crv": jwk.crv ?? "", "x": jwk.x ?? "", "y": jwk.y ?? ""]
    }

    /// A proof's `htu`: the URL without query and fragment (RFC 9449 §4.2, docs/contract.md §7).
    static func htu(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        return components?.string ?? url.absoluteString
    }

    /// Keeps `key` as the device key of `userId` in `applicationId`, registered with `credentialId`.
    func save(_ key: P256.Signing.PrivateKey, applicationId: String, userId: String, credentialId: String)
        throws(ZSMError)
    {
        try saveSealed(Array(key.rawRepresentation), applicationId: applicationId, userId: userId, label: credentialId)
    }

    /// The device key of `userId` and the credential it was registered with; `nil` when this
    /// device enrolled that user without one (not out of band).
    func load(applicationId: String, userId: String) throws(ZSMError) -> (
        key: P256.Signing.PrivateKey, credentialId: String
    )? {
        guard let (raw, label) = try loadSealed(applicationId: applicationId, userId: userId) else { return nil }
        do {
            return (try P256.Signing.PrivateKey(rawRepresentation: raw), label)
        } catch {
            throw ZSMError(.keyStoreDamaged, "the device key of \(userId) is damaged or sealed by another device")
        }
    }

    /// Keeps `bytes` sealed (AES-GCM, `label` authenticated with them) under `applicationId` and
    /// `userId`.
    func saveSealed(_ bytes: [UInt8], applicationId: String, userId: String, label: String) throws(ZSMError) {
        do {
            let box = try AES.GCM.seal(
                bytes, using: try provider().deriveSealingKey(from: sealingMaterial), authenticating: Array(label.utf8))
            guard let combined = box.combined else { throw ZSMError(.keyStoreDamaged, "sealing failed") }
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let entry = Entry(credentialId: label, sealed: Base64URLBytes([UInt8](combined)))
            try AtomicFile.write(try JSONEncoder().encode(entry), to: file(applicationId, userId))
        } catch let error as ZSMError {
            throw error
        } catch {
            throw ZSMError(.keyStoreDamaged, "a device key could not be stored")
        }
    }

    /// The bytes kept under `applicationId` and `userId`, and their label; `nil` when there are none.
    func loadSealed(applicationId: String, userId: String) throws(ZSMError) -> ([UInt8], String)? {
        guard let data = FileManager.default.contents(atPath: file(applicationId, userId).path) else { return nil }
        do {
            let entry = try JSONDecoder().decode(Entry.self, from: data)
            let raw = try AES.GCM.open(
                try AES.GCM.SealedBox(combined: entry.sealed.bytes),
                using: try provider().deriveSealingKey(from: sealingMaterial),
                authenticating: Array(entry.credentialId.utf8))
            return (Array(raw), entry.credentialId)
        } catch {
            throw ZSMError(.keyStoreDamaged, "a key of \(userId) is damaged or sealed by another device")
        }
    }

    /// Forgets the device key of `userId`.
    func remove(applicationId: String, userId: String) {
        try? FileManager.default.removeItem(at: file(applicationId, userId))
    }

    private func file(_ applicationId: String, _ userId: String) -> URL {
        let name = Hex.encode(SHA256.hash(data: Array("\(applicationId)\u{0}\(userId)".utf8)))
        return directory.appendingPathComponent(name + ".json")
    }

    /// A device proof (docs/contract.md §7) for a request of `method` to `url`: a compact JWS, ES256,
    /// `typ` `umfa-device+jwt`, with `htm`, `htu`, `iat`, a fresh `jti` and `sub` the credential.
    static func proof(key: P256.Signing.PrivateKey, credentialId: String, method: String, url: URL) throws(ZSMError)
        -> String
    {
        let claims = JWTClaims(
            sub: credentialId, iat: Date().timeIntervalSince1970.rounded(.down), jti: UUID().uuidString.lowercased(),
            htm: method, htu: htu(url))
        return try compactJWS(header: JWSHeader(algorithm: .es256, typ: "umfa-device+jwt"), claims: claims, key: key)
    }

    /// A compact JWS (RFC 7515) of `claims` with `header`, signed ES256 with `key`.
    static func compactJWS(header: JWSHeader, claims: JWTClaims, key: P256.Signing.PrivateKey) throws(ZSMError)
        -> String
    {
        do {
            return try JWSCompactSerialization.sign(header: header, claims: claims, key: .es256(key))
        } catch {
            throw ZSMError(.keyStoreDamaged, "a proof could not be signed")
        }
    }
}
