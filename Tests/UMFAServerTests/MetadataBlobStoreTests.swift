import Foundation
import Testing

@testable import UMFAServer

/// ``MetadataBlobStore``: the last FIDO metadata BLOB taken, kept in the data directory for the
/// next start (docs/operators/metadata.md).
@Suite("FIDO metadata refresh: the stored BLOB")
struct MetadataBlobStoreTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-mds-\(UUID())")

    @Test("nothing stored reads as nil; a write replaces the file whole, mode 0600, no temporary left")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = MetadataBlobStore(dataDirectory: directory)
        #expect(try store.read() == nil)
        try store.write("first.blob.jws")
        try store.write("second.blob.jws")
        let stored = try #require(try store.read())
        #expect(stored.blob == "second.blob.jws")
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["metadata-blob.jws"])
    }

    @Test("a write into a directory that cannot be created throws, naming no BLOB")
    func unwritable() throws {
        let file = directory.appendingPathExtension("file")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let store = MetadataBlobStore(dataDirectory: file.appendingPathComponent("data"))
        #expect(throws: (any Error).self) { try store.write("blob") }
    }
}
