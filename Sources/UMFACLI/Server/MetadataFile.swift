import ArgumentParser
import Foundation
import UMFAServer
import UMFAWebAuthn
import X509

/// A FIDO Metadata Service BLOB named on the command line, verified against `root` (the FIDO
/// metadata root, GlobalSign Root CA - R3, unless another is named) at `time`.
enum MetadataFile {
    static func load(_ path: String, root: Certificate? = nil, at time: Date = Date()) async throws -> MetadataIndex {
        let blob = String(decoding: try CommandIO.readFile(path), as: UTF8.self)
        let anchor = try MetadataSettings.root(named: root)
        do {
            return try await MetadataIndex(blob: blob, root: anchor, at: time)
        } catch {
            throw ValidationError("\(path): \(error.message)")
        }
    }
}
