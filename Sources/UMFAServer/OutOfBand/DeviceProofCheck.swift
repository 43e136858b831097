import Foundation
import UMFAEncoding
import UMFAJOSE
import UMFAStorage
import UMFATokens

/// The device proof of a device-facing route (docs/contract.md §7): `Authorization: UMFA-Device
/// <JWT>`, signed with the device key registered with the credential its `sub` names, bound to
/// the request's method and URL, its `jti` used once on any instance. The credential must be
/// the named user's in the named application.
struct DeviceProofCheck: Sendable {
    let store: any DeviceKeyStore & OAuthGrantStore
    let abuse: AbuseGuard
    /// The server's public URL: the proofs' `htu` is under it.
    let publicURL: String
    let now: @Sendable () -> Date

    /// The checked proof's credential; 401 (counted like any wrong credential) otherwise.
    func verify(_ caller: Caller, method: String, path: String, application: ApplicationRecord, userID: String)
        async throws -> [UInt8]
    {
        func refuse(_ message: String) async throws -> Never {
            try await abuse.refuseCredential(caller, ServiceError.unauthenticated(message))
        }
        guard let proof = caller.deviceProof else {
            try await refuse("Send a device proof: Authorization: UMFA-Device <JWT>")
        }
        guard let subject = DeviceProof.credentialID(of: proof), let credentialID = Base64URL.decode(subject),
            let key = try await store.deviceKey(applicationID: application.id, credentialID: credentialID),
            key.userID.isSameBytes(as: userID),
            let jwk = try? JSONDecoder().decode(JWK.self, from: Data(key.publicJWK.utf8))
        else { try await refuse("The device proof names no device key of this user") }
        let checked: DeviceProof
        do {
            checked = try DeviceProof(
                proof, deviceKey: jwk, method: method, url: publicURL + path, now: now())
        } catch {
            try await refuse("The device proof is refused: \(error.message)")
        }
        // The jti: a second use anywhere conflicts with the first's row.
        do {
            try await store.insertOAuthGrant(
                OAuthGrantRecord(
                    kind: .deviceProof, handleHash: Secrets.hash("device:\(subject):\(checked.jti)"),
                    applicationID: application.id, family: nil, subject: userID, payload: [],
                    createdAt: now(),
                    expiresAt: now().addingTimeInterval(2 * DPoPProof.window + 10)))
        } catch let error as StoreError where error.code == .conflict {
            try await refuse("The device proof was used before")
        }
        return credentialID
    }

    /// Whether the device key of `credentialID` is still `userID`'s (its credential not deleted).
    func stillValid(application: ApplicationRecord, credentialID: [UInt8], userID: String) async throws -> Bool {
        try await store.deviceKey(applicationID: application.id, credentialID: credentialID)?.userID
            .isSameBytes(as: userID) == true
    }
}
