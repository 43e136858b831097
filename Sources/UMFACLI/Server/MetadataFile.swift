import ArgumentParser
import Foundation
import Logging
import UMFAWebAuthn
import X509

/// A FIDO Metadata Service BLOB named on the command line, verified against `root` (the FIDO
/// metadata root, GlobalSign Root CA - R3, unless another is named) at `time`.
enum MetadataFile {
    static func load(_ path: String, root: Certificate? = nil, at time: Date = Date()) async throws -> MetadataIndex {
        let blob = String(decoding: try CommandIO.readFile(path), as: UTF8.self)
        let anchor = try root ?? WellKnownRoot.fidoMetadataRoot.certificate
        do {
            return try await MetadataIndex(blob: blob, root: anchor, at: time)
        } catch {
            throw ValidationError("\(path): \(error.message)")
        }
    }

    /// Says which BLOB was loaded, and warns when its `nextUpdate` has passed.
    static func logLoaded(_ index: MetadataIndex, logger: Logger, now: Date = Date()) {
        logger.info(
            "FIDO metadata loaded",
            metadata: [
                "metadata.serial": "\(index.serialNumber)", "metadata.entries": "\(index.entries.count)",
                "metadata.next_update": "\(index.nextUpdate)",
            ])
        if let next = index.nextUpdateDate, next < now {
            logger.warning(
                "the FIDO metadata BLOB is past its nextUpdate: download a fresh one",
                metadata: ["metadata.next_update": "\(index.nextUpdate)"])
        }
    }
}
