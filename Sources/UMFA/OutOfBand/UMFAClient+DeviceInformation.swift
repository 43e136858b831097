import Crypto
import Foundation
import UMFAContract

extension UMFAClient {
    /// Changes the device information (name, push-service token) this device registered with
    /// its out-of-band enrollments in ``ZSMConfig/applicationId``, as after the push service
    /// issued a new token: each enrolled user's device key proves the change to the server
    /// (`POST /api/umfa/device-information`, docs/out-of-band.md), and later registrations on
    /// this device send it (``OutOfBandRegistration/deviceInformation(_:)``).
    /// - Throws: ``ZSMError`` `notEnrolled` when no user of the application is enrolled out of
    ///   band on this device (nothing changes then); `networkError`, `serverError`,
    ///   `verificationFailed` as the server answers.
    public func updateDeviceInformation(_ information: DeviceInformation) async throws(ZSMError) {
        try config.validate()
        let keys = DeviceSigningKeys(config: config)
        var proven: [(userId: String, key: P256.Signing.PrivateKey, credentialId: String)] = []
        for entry in try device().enrollments.entries(applicationId: config.applicationId) {
            if let (key, credentialId) = try keys.load(applicationId: config.applicationId, userId: entry.userId) {
                proven.append((entry.userId, key, credentialId))
            }
        }
        guard !proven.isEmpty else {
            throw ZSMError(.notEnrolled, "no user of this application is enrolled out of band on this device")
        }
        let http = UMFAHTTPRelyingParty(config: config)
        for (userId, key, credentialId) in proven {
            let proof = { (url: URL) throws(ZSMError) -> String in
                "UMFA-Device "
                    + (try DeviceSigningKeys.proof(key: key, credentialId: credentialId, method: "POST", url: url))
            }
            let body = DeviceInformationRequest(
                applicationID: config.applicationId, userID: userId, name: information.name,
                pushToken: information.pushToken)
            let _: DeviceInformationResponse = try await http.post(
                .updateDeviceInformation, retry: false, authorization: proof, { _ in body })
        }
        try DeviceInformationFile(directory: config.storageLocation).save(
            information, applicationId: config.applicationId)
    }
}
