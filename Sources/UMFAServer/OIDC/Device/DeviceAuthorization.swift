import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// The device authorization endpoint (RFC 8628 §3.1–3.2): a client registered for the device
/// grant asks for a device code to poll with and a user code for the person, who types it on the
/// hosted device page (``DeviceApproval``). Both are handles of ``OAuthGrants``: only their
/// hashes are stored, they live ``lifetime`` seconds, and any instance serves them.
struct DeviceAuthorization: Sendable {
    let issuer: OAuthIssuer
    let authentication: ClientAuthenticationChain
    let grants: OAuthGrants

    /// How long the codes live (RFC 8628 §3.2 `expires_in`).
    static let lifetime = 600
    /// The first polling interval (RFC 8628 §3.2 `interval`); each `slow_down` adds ``slowDownStep``.
    static let interval = 5
    static let slowDownStep = 5
    static let deviceCodePrefix = "umfa_dc_"

    /// What a device code stands for while the person decides.
    struct Pending: PolledRequest {
        var clientID: String
        var scopes: [String]
        /// Seconds the device must wait between polls; grows with each `slow_down`.
        var interval: Int
        /// The last poll, seconds since 1970.
        var lastPoll: Int?
    }

    /// What a user code stands for: the hash of its device code (base64url).
    struct UserCodeGrant: Codable, Sendable {
        var deviceCodeHash: String
    }

    /// The person's decision, stored under the device code's hash.
    struct Decision: Codable, Sendable {
        var approved: Bool
        var signIn: SignIn?
    }

    /// `POST <issuer>/device_authorization`: the client authenticated as at the token endpoint and
    /// registered for the grant, the scopes of those it may ask for, then the codes.
    func authorize(_ request: TokenRequest) async throws -> DeviceAuthorizationResponse {
        // Step 1 (RFC 8628 §3.1): the client, authenticated as at the token endpoint.
        let client = try await authentication.registeredMethod(request)
        guard client.grantTypes.contains(DeviceCodeGrant.grantType) else {
            throw OAuthError(code: .unauthorizedClient, "The client may not use \(DeviceCodeGrant.grantType)")
        }
        let scopes = try GrantScopes.granted(request.form["scope"], allowed: client.scopes)
        // Step 2 (RFC 8628 §3.2): a device code, and a user code that names it.
        let lifetime = TimeInterval(Self.lifetime)
        let deviceCode = try await grants.create(
            .deviceCode, Pending(clientID: client.clientID, scopes: scopes, interval: Self.interval),
            lifetime: lifetime, prefix: Self.deviceCodePrefix)
        let pointer = UserCodeGrant(deviceCodeHash: Base64URL.encode(Secrets.hash(deviceCode)))
        var userCode = UserCode.generate()
        // One in 2.56 × 10¹⁰ per live code: a clash is rare, and a new code settles it.
        for attempt in 1... {
            do {
                try await grants.store(
                    .userCode, handleHash: Self.hash(userCode: userCode), pointer, lifetime: lifetime)
                break
            } catch let error as StoreError where error.code == .conflict && attempt < 5 {
                userCode = UserCode.generate()
            }
        }
        let page = issuer.issuer + "/device"
        return DeviceAuthorizationResponse(
            deviceCode: deviceCode, userCode: userCode, verificationURI: page,
            verificationURIComplete: page + "?user_code=" + userCode, expiresIn: Self.lifetime,
            interval: Self.interval)
    }

    /// The stored hash of a user code as typed; `nil` when it cannot be a code.
    static func hash(userCode typed: String) -> [UInt8] {
        Secrets.hash("user_code\u{1}" + (UserCode.normalize(typed) ?? typed))
    }
}
