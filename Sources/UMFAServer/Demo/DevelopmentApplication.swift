import Foundation
import UMFAStorage

/// Which application is the development application `umfa serve` created on a fresh
/// database. The id is kept as a setting, so every instance on the same database, and the
/// same server after a restart, recognises it; the demo routes serve only that application.
enum DevelopmentApplication {
    /// The setting that holds the development application's id.
    static let settingName = "development_application_id"

    /// Records `id` as the development application (first writer wins).
    static func record(_ id: UUID, in store: any SettingStore) async throws {
        _ = try await store.insertSettingIfAbsent(settingName, value: id.uuidString.lowercased())
    }

    /// The development application's id, or `nil` when this database has none.
    static func id(in store: any SettingStore) async throws -> UUID? {
        try await store.setting(settingName).flatMap(UUID.init(uuidString:))
    }
}
