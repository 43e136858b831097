import Foundation
import UMFAContract
import UMFAEncoding
import UMFAStorage

/// `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4–3.5): the device
/// polls with its device code until the person decides on the hosted device page
/// (``DeviceApproval``). The decision is consumed exactly once, on any instance: approved, the
/// tokens of the person's sign-in; denied, `access_denied`; then the device code is spent.
/// Before a decision, `authorization_pending`, or `slow_down` (and a longer interval) for a poll
/// that came sooner than the interval; after the codes expire, `expired_token`.
struct DeviceCodeGrant: GrantHandler {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
    let grants: OAuthGrants
    let userTokens: UserTokens
    let now: @Sendable () -> Date

    func grant(_ input: GrantInput) async throws -> OAuthTokenResponse {
        try input.requireRegistered(for: Self.grantType)
        let deviceCode = try input.form.require("device_code")
        let hash = Secrets.hash(deviceCode)
        // Step 1 (RFC 8628 §3.5): a device code of this issuer, live, the client's own.
        guard deviceCode.utf8.count <= 128,
            let device = try await grants.live(.deviceCode, handleHash: hash, as: DeviceAuthorization.Pending.self)
        else { throw try await grants.spentOrExpired(.deviceCode, handleHash: hash, handle: "device code") }
        guard device.payload.clientID.utf8.elementsEqual(input.client.clientID.utf8) else {
            throw OAuthError(code: .invalidGrant, "The device code was issued to another client")
        }
        // Step 2: the person's decision, taken once.
        guard
            let decision = try await grants.consume(
                .deviceDecision, handleHash: hash, as: DeviceAuthorization.Decision.self
            ).found
        else {
            throw try await grants.pending(
                .deviceCode, device, handleHash: hash, waitingFor: "The person has not decided yet")
        }
        _ = try await grants.consume(.deviceCode, handleHash: hash, as: DeviceAuthorization.Pending.self)
        guard decision.payload.approved, let signIn = decision.payload.signIn else {
            throw OAuthError(code: .accessDenied, "The person denied the request")
        }
        // Step 3 (RFC 8628 §3.5, RFC 6749 §5.1): the tokens, bound as the code grant binds them.
        let confidential = input.client.authenticationMethod.isConfidential
        return try await userTokens.issue(
            to: input.client, signIn: signIn, scopes: device.payload.scopes,
            family: "f" + Base64URL.encode(Secrets.randomBytes(16)), nonce: nil, jkt: input.binding.jkt,
            refreshJKT: confidential ? nil : input.binding.jkt, x5t: input.binding.x5t,
            refreshX5T: confidential ? nil : input.binding.x5t)
    }
}
