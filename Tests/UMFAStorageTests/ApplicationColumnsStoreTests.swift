import Foundation
import Testing
import UMFATokens

@testable import UMFAStorage

/// An application's columns are declared once, in `ApplicationRecord.table`: the table the
/// migrations make, the statements and the row decoding all follow from that list.
@Suite("Storage: application columns declared once")
struct ApplicationColumnsStoreTests {
    @Test(
        "every column of applications is declared once, with its type, nullability and default",
        arguments: Engine.allCases)
    func declarationMatchesSchema(engine: Engine) async throws {
        try await OpenedStores.with(engine) { stores in
            let store = try await stores.open()
            let schema = try await MigratedColumn.applications(store, engine)
            let declared = ApplicationRecord.table.columns
            #expect(Set(declared.map(\.name)).count == declared.count, "a column declared twice")
            #expect(Set(declared.map(\.name)) == Set(schema.map(\.name)))
            for column in declared {
                let migrated = try #require(schema.first { $0.name == column.name }, "\(column.name) not in the table")
                #expect(migrated.type == column.type.rawValue, "\(column.name)")
                if column.role != .key {
                    #expect(migrated.nullable == (column.defaultValue == .null), "\(column.name)")
                }
                #expect(migrated.defaultLiteral == MigratedColumn.literal(column.defaultValue), "\(column.name)")
            }
        }
    }

    @Test("the copier's catalog of applications is the declared columns, integers as integers")
    func catalogFollowsDeclaration() async throws {
        let catalog = try #require(try await SchemaCatalog.tables().first { $0.name == "applications" })
        let declared = ApplicationRecord.table.columns
        #expect(catalog.columns.sorted() == declared.map(\.name).sorted())
        #expect(catalog.integerColumns == Set(declared.filter { $0.type != .text }.map(\.name)))
    }

    @Test("the declared columns added later all come after the written migrations")
    func addedVersionsAreDeclared() {
        for column in ApplicationRecord.table.columns {
            if let added = column.added {
                #expect(added >= Schema.firstDeclaredVersion, "\(column.name)")
            }
        }
        #expect(Schema.migrations.count >= Schema.firstDeclaredVersion - 1)
    }

    @Test(
        "an application with every setting set, and one with every optional NULL, round-trip through insert and update",
        arguments: Engine.allCases)
    func everySettingRoundTrips(engine: Engine) async throws {
        let full = EverySetting.full()
        let empty = EverySetting.optionalsNull(id: UUID(), createdAt: Records.time(7))
        // The fixtures exercise every declared column: each writes what a plain application does not.
        let plain = Records.application()
        for column in ApplicationRecord.table.columns {
            #expect(column.write(full) != column.write(plain), "\(column.name) is not set by the fixture")
            if column.defaultValue == .null {
                #expect(column.write(empty) == .null, "\(column.name)")
            }
        }
        #expect(ApplicationRecord.table.columns.contains { $0.defaultValue == .null })

        try await StoreLocation.withStore(engine) { store in
            try await store.insertApplication(full)
            try await store.insertApplication(empty)
            #expect(try await store.application(id: full.id) == full)
            #expect(try await store.application(id: empty.id) == empty)

            // Each takes the other's settings; the key and the creation time stay.
            var fullEmptied = EverySetting.optionalsNull(id: full.id, createdAt: full.createdAt)
            fullEmptied.name = "Emptied"
            var emptyFilled = EverySetting.full()
            (emptyFilled.id, emptyFilled.createdAt) = (empty.id, empty.createdAt)
            try await store.updateApplication(fullEmptied)
            try await store.updateApplication(emptyFilled)
            #expect(try await store.application(id: full.id) == fullEmptied)
            #expect(try await store.application(id: empty.id) == emptyFilled)

            var moved = emptyFilled
            moved.createdAt = Records.time(900)
            try await store.updateApplication(moved)
            #expect(
                try await store.application(id: empty.id)?.createdAt == empty.createdAt, "an update keeps created_at")
        }
    }

    @Test("a column declared with added: N is added by migration N; the statements list every column")
    func derivation() {
        let table = Probe.table
        #expect(
            table.addedColumns == [
                17: [
                    "ALTER TABLE probes ADD COLUMN flag INTEGER NOT NULL DEFAULT 0",
                    "ALTER TABLE probes ADD COLUMN note TEXT",
                ],
                18: [
                    "ALTER TABLE probes ADD COLUMN quote TEXT NOT NULL DEFAULT 'it''s'",
                    "ALTER TABLE probes ADD COLUMN count BIGINT NOT NULL DEFAULT 3",
                ],
            ])
        let written = (1...16).map { ["written \($0)"] }
        let migrations = Schema.merging(written, adding: [table.addedColumns])
        #expect(migrations.count == 18)
        #expect(Array(migrations.prefix(16)) == written)
        #expect(migrations[16] == table.addedColumns[17])
        #expect(migrations[17] == table.addedColumns[18])
        // A version that is also written gets its declared columns after its own statements.
        #expect(Schema.merging([["one"], ["two"]], adding: [[2: ["added"]]]) == [["one"], ["two", "added"]])

        #expect(table.insertSQL == "INSERT INTO probes (label, flag, note, quote, count) VALUES (?, ?, ?, ?, ?)")
        #expect(table.updateSQL == "UPDATE probes SET flag = ?, note = ?, quote = ?, count = ? WHERE label = ?")
        let probe = Probe(label: "a", flag: true, note: "n", quote: "q", count: 9)
        #expect(table.insertValues(probe) == [.text("a"), .integer(1), .text("n"), .text("q"), .integer(9)])
        #expect(table.updateValues(probe) == [.integer(1), .text("n"), .text("q"), .integer(9), .text("a")])
    }

    @Test(
        "both engines run the derived ALTER statements on a table with rows, which then read as the defaults",
        arguments: Engine.allCases)
    func derivedStatementsRun(engine: Engine) async throws {
        try await StoreLocation.withStore(engine) { store in
            _ = try await store.rawRows("CREATE TABLE probes (label TEXT PRIMARY KEY)")
            _ = try await store.rawRows("INSERT INTO probes (label) VALUES ('old')")
            for version in Probe.table.addedColumns.keys.sorted() {
                for statement in Probe.table.addedColumns[version] ?? [] { _ = try await store.rawRows(statement) }
            }
            let row = try #require(try await store.rawRows("SELECT * FROM probes").first)
            var read = Probe(label: "", flag: true, note: "unread", quote: "", count: 0)
            try Probe.table.read(row, into: &read)
            #expect(read == Probe(label: "old", flag: false, note: nil, quote: "it's", count: 3))
        }
    }
}

/// A record of a table only these tests make, its later columns declared with their versions.
private struct Probe: Equatable {
    var label: String
    var flag: Bool
    var note: String?
    var quote: String
    var count: Int64

    static let table = StoredTable<Probe>(
        "probes",
        columns: [
            StoredColumn("label", .text, role: .key, write: { .text($0.label) }, read: { $0.label = try $1.text() }),
            StoredColumn(
                "flag", .boolean, default: .integer(0), added: 17, write: { .bool($0.flag) },
                read: { $0.flag = try $1.integer() != 0 }),
            StoredColumn(
                "note", .text, default: .null, added: 17, write: { $0.note.map { .text($0) } ?? .null },
                read: { $0.note = $1.optionalText() }),
            StoredColumn(
                "quote", .text, default: .text("it's"), added: 18, write: { .text($0.quote) },
                read: { $0.quote = try $1.text() }),
            StoredColumn(
                "count", .bigint, default: .integer(3), added: 18, write: { .integer($0.count) },
                read: { $0.count = try $1.integer() }),
        ])
}

/// Applications whose every setting differs from a plain one's.
private enum EverySetting {
    static func full() -> ApplicationRecord {
        var app = ApplicationRecord(
            id: UUID(), name: "Every setting", rpID: "login.example.org", rpName: "Every setting shop",
            origins: ["https://login.example.org", "android:apk-key-hash:abc-_DEF"],
            relatedOrigins: ["https://example.net", "https://example.co.uk"], enrollmentPolicy: .open,
            userVerification: .required, attestation: .enterprise, tokenTTLSeconds: 3600, createdAt: Records.time(42),
            attestationPolicy: .selfOrTrusted, aaguidAllow: ["ee882879-721c-4913-9775-3dfcce97072a"],
            aaguidDeny: ["00000000-0000-0000-0000-000000000001"], signup: .disabled, tokenSigningAlgorithm: .es256,
            appleAppIDs: ["ABCDE12345.com.example.app"],
            androidApps: [
                AndroidAppIdentity(packageName: "com.example.app", sha256CertFingerprints: ["AB:CD:EF", "01:23"])
            ],
            dpopNonce: .required, webhookURL: "https://hooks.example.org/umfa?a=1&b='2'",
            sealedWebhookSecret: [0x00, 0x01, 0xFB, 0xFF], allowedScopes: ["openid", "orders:read"],
            resourceIndicators: ["https://api.example.org/"])
        app.ceremonyPreferences = CeremonyPreferences(
            hints: [.securityKey, .hybrid], attestationFormats: ["tpm", "packed"],
            credentialProtectionPolicy: .userVerificationRequired, enforceCredentialProtectionPolicy: true)
        app.introspectionClients = ["resource-server", "gateway"]
        app.emailRecovery = false
        app.authorizationDetailsTypes = ["payment_initiation"]
        return app
    }

    /// Every setting set as ``full()`` sets it but the optional ones, which are `nil`.
    static func optionalsNull(id: UUID, createdAt: Date) -> ApplicationRecord {
        var app = full()
        (app.id, app.createdAt, app.name) = (id, createdAt, "Optionals null")
        app.aaguidAllow = nil
        app.webhookURL = nil
        app.sealedWebhookSecret = nil
        app.ceremonyPreferences.credentialProtectionPolicy = nil
        return app
    }
}

/// A column of `applications` as a migrated store describes it.
private struct MigratedColumn {
    let name: String
    /// The SQL type, upper case.
    let type: String
    let nullable: Bool
    /// The default's SQL literal, without PostgreSQL's `::text` cast; `nil` for none.
    let defaultLiteral: String?

    /// The columns of `applications`: SQLite's `PRAGMA table_info`, PostgreSQL's
    /// `information_schema.columns`.
    static func applications(_ store: any UMFAStore, _ engine: Engine) async throws -> [MigratedColumn] {
        switch engine {
        case .sqlite:
            return try await store.rawRows("PRAGMA table_info(applications)").map {
                MigratedColumn(
                    name: try $0.text("name"), type: try $0.text("type").uppercased(),
                    nullable: try $0.integer("notnull") == 0, defaultLiteral: $0.optionalText("dflt_value"))
            }
        case .postgres:
            return try await store.rawRows(
                """
                SELECT column_name::text AS name, upper(data_type::text) AS type, is_nullable::text AS nullable,
                    column_default::text AS dflt FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'applications'
                """
            ).map {
                MigratedColumn(
                    name: try $0.text("name"), type: try $0.text("type"), nullable: try $0.text("nullable") == "YES",
                    defaultLiteral: $0.optionalText("dflt").map {
                        $0.hasSuffix("::text") ? String($0.dropLast("::text".count)) : $0
                    })
            }
        }
    }

    /// The literal a declared default is migrated with; `nil` for none or NULL.
    static func literal(_ value: StoreQuery.Value?) -> String? {
        switch value {
        case .text(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .integer(let integer): String(integer)
        case .null, nil: nil
        }
    }
}
