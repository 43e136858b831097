import Foundation
import Testing
import UMFATokens

@Suite("Master key")
struct MasterKeyTests {
    @Test("the key file is created once with mode 0600, read back alike, and refused when damaged")
    func keyFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = try MasterKey.loadOrCreate(in: directory)
        let second = try MasterKey.loadOrCreate(in: directory)
        let sealed = try first.seal([1, 2, 3], context: "test")
        #expect(try second.open(sealed, context: "test") == [1, 2, 3])
        #expect(throws: MasterKey.Failure.self) { try second.open(sealed, context: "other") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["master.key"])
        let file = directory.appendingPathComponent("master.key").path
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
        #expect(throws: MasterKey.Failure.self) { try MasterKey.loadOrCreate(in: directory) }
    }

    @Test("UMFA_MASTER_KEY takes 32 bytes in standard or URL-safe base64 and nothing else")
    func givenKey() throws {
        let bytes = Data((0..<32).map { UInt8($0 * 7 % 256) })
        let standard = bytes.base64EncodedString()
        let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let sealed = try MasterKey(base64: standard).seal([9], context: "c")
        #expect(try MasterKey(base64: urlSafe).open(sealed, context: "c") == [9])
        for bad in ["", "short", Data(count: 31).base64EncodedString(), Data(count: 33).base64EncodedString()] {
            #expect(throws: MasterKey.Failure.self) { try MasterKey(base64: bad) }
        }
    }

    @Test(
        "a key file the group or others may use stops the start, naming the file and chmod 600",
        arguments: [0o644, 0o640, 0o604, 0o660, 0o620, 0o602, 0o666])
    func openKeyFile(mode: Int) throws {
        let directory = try Self.directoryWithKey()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("master.key").path
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        let failure = #expect(throws: MasterKey.Failure.self) { try MasterKey.loadOrCreate(in: directory) }
        #expect(failure?.description.contains(file) == true, "\(String(describing: failure))")
        #expect(failure?.description.contains("chmod 600 \(file)") == true, "\(String(describing: failure))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "the key is never replaced")

        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: file)
        _ = try MasterKey.loadOrCreate(in: directory)
    }

    @Test("a key file owned by another user stops the start, naming the file and the fix")
    func foreignKeyFile() throws {
        let directory = try Self.directoryWithKey()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("master.key").path
        if geteuid() == 0 {
            #expect(chown(file, 65_534, 65_534) == 0)
        } else {
            // Someone else's private file cannot be made here; a link to one of root's will do.
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "/etc/hostname")
        }
        let failure = #expect(throws: MasterKey.Failure.self) { try MasterKey.loadOrCreate(in: directory) }
        #expect(failure?.description.contains("\(file) belongs to user id") == true, "\(String(describing: failure))")
        #expect(failure?.description.contains("chmod 600") == true)
    }

    /// A fresh directory with a generated `master.key`.
    static func directoryWithKey() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = try MasterKey.loadOrCreate(in: directory)
        return directory
    }
}
