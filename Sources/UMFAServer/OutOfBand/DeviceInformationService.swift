import UMFAContract
import UMFAEncoding
import UMFAStorage

/// `POST /api/umfa/device-information` (docs/out-of-band.md): a device proven by the device key
/// of its out-of-band enrollment changes the name and push token kept with that key, as after
/// a new push token. Nevis's device-information change, for the push dispatchers
/// (``ApprovalDispatcher``) to reach the device again.
struct DeviceInformationService: Sendable {
    let store: any ApplicationStore & DeviceKeyStore
    let deviceProofs: DeviceProofCheck

    /// Checks the device proof and the new values, then keeps them with the proving key.
    func update(_ request: DeviceInformationRequest, caller: Caller) async throws -> DeviceInformationResponse {
        try FieldRules.checkUserID(request.userID)
        try FieldRules.checkName(request.name, field: "name", maximumBytes: 128)
        try FieldRules.checkName(request.pushToken, field: "push_token", maximumBytes: 4096)
        let application = try await store.application(request.applicationID)
        let credentialID = try await deviceProofs.verify(
            caller, method: "POST", path: APIOperation.updateDeviceInformation.path, application: application,
            userID: request.userID)
        guard var key = try await store.deviceKey(applicationID: application.id, credentialID: credentialID)
        else { throw ServiceError.unauthenticated("The device proof names no device key of this user") }
        key.name = request.name
        key.pushToken = request.pushToken
        try await store.upsertDeviceKey(key)
        return DeviceInformationResponse(
            traceID: caller.traceID, credentialID: Base64URL.encode(credentialID), name: request.name,
            pushToken: request.pushToken)
    }
}
