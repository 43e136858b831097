import Foundation
import UMFAAuthenticator

/// The name and push-service token (APNs, FCM) a device registers with its out-of-band
/// enrollments, as the Nevis SDK's `NMADeviceInformation`: given once, at the first
/// registration that gives one, and kept by the device (docs/out-of-band.md).
public struct DeviceInformation: Sendable, Hashable, Codable {
    /// The device's name in the user's credential lists.
    public var name: String
    /// The push-service token later approvals reach the device with; `nil` for none.
    public var pushToken: String?

    /// Creates device information.
    public init(name: String, pushToken: String? = nil) {
        self.name = name
        self.pushToken = pushToken
    }
}

/// The device information this device registered, per application: `device-information.json`
/// (mode 0600) in the storage location. A registration's own is ignored once one is kept.
struct DeviceInformationFile: Sendable {
    let file: URL

    init(directory: URL) {
        file = directory.appendingPathComponent("device-information.json")
    }

    /// The information kept for `applicationId`, if a registration gave one.
    func information(applicationId: String) throws(ZSMError) -> DeviceInformation? {
        try load()[applicationId]
    }

    /// Keeps `information` for `applicationId`.
    func save(_ information: DeviceInformation, applicationId: String) throws(ZSMError) {
        var all = try load()
        all[applicationId] = information
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(try encoder.encode(all), to: file)
        } catch {
            throw ZSMError(.keyStoreDamaged, "cannot write \(file.path)")
        }
    }

    private func load() throws(ZSMError) -> [String: DeviceInformation] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [:] }
        do {
            return try JSONDecoder().decode([String: DeviceInformation].self, from: data)
        } catch {
            throw ZSMError(.keyStoreDamaged, "\(file.lastPathComponent) is damaged")
        }
    }
}
