import Foundation
import Testing

@testable import UMFAStorage

@Suite("Storage: PostgreSQL URL parameters")
struct PostgresURLTests {
    private let base = "postgres://umfa:secret@db.internal:5432/umfa"

    private func startup(_ url: String) throws -> [String: String] {
        Dictionary(
            try PostgresStore.configuration(url).options.additionalStartupParameters, uniquingKeysWith: { $1 })
    }

    @Test("pool_size sets the connections per instance; twice the cores plus one without it")
    func poolSize() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(try PostgresStore.configuration(base).options.maximumConnections == min(100, cores * 2 + 1))
        #expect(try PostgresStore.configuration(base + "?pool_size=4").options.maximumConnections == 4)
    }

    @Test(
        "an out-of-range or unknown value is refused with a message naming the parameter",
        arguments: [
            ("?pool_size=0", "pool_size"), ("?pool_size=101", "pool_size"), ("?pool_size=many", "pool_size"),
            ("?synchronous_commit=maybe", "synchronous_commit"), ("?synchronous_commit=", "synchronous_commit"),
        ])
    func refused(query: String, parameter: String) {
        let error = #expect(throws: StoreError.self) { try PostgresStore.configuration(base + query) }
        #expect(error?.message.contains(parameter) == true, "\(String(describing: error))")
    }

    @Test("synchronous_commit and search_path become startup parameters of every connection")
    func startupParameters() throws {
        #expect(try startup(base).isEmpty)
        let both = try startup(base + "?search_path=tenant_a&synchronous_commit=off")
        #expect(both == ["search_path": "tenant_a", "synchronous_commit": "off"])
        for value in PostgresStore.synchronousCommitValues {
            #expect(try startup(base + "?synchronous_commit=\(value)")["synchronous_commit"] == value)
        }
    }

    @Test("a store opened with synchronous_commit=off runs its sessions with it")
    func sessionSetting() async throws {
        let location = try await StoreLocation.make(.postgres)
        let executor = PostgresExecutor(
            configuration: try PostgresStore.configuration(
                TestDatabase.url(location.address, adding: "synchronous_commit", "off")),
            leaseTimeout: .seconds(30), logger: TestDatabase.logger)
        let rows = try await executor.rows(StoreQuery("SELECT current_setting('synchronous_commit') AS setting"))
        try await executor.close()
        #expect(rows.first?.optionalText("setting") == "off")
    }
}
