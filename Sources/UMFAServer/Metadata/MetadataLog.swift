import Foundation
import Logging
import UMFAWebAuthn

/// The log lines of FIDO metadata taken into use, the same for a BLOB read from
/// `UMFA_METADATA_FILE`, one downloaded from `UMFA_METADATA_URL` and one stored in the data
/// directory (docs/operators/metadata.md).
package enum MetadataLog {
    /// Says which BLOB was taken, from where (`file`, `url` or `stored`), and warns when its
    /// `nextUpdate` has already passed: a newer BLOB is overdue (FIDO Metadata Service 3.0 §3.1.6).
    package static func loaded(_ index: MetadataIndex, source: String, logger: Logger, now: Date) {
        logger.info(
            "FIDO metadata loaded",
            metadata: [
                "metadata.serial": "\(index.serialNumber)", "metadata.entries": "\(index.entries.count)",
                "metadata.next_update": "\(index.nextUpdate)", "metadata.source": "\(source)",
            ])
        if let next = index.nextUpdateDate, next < now {
            logger.warning(
                "the FIDO metadata BLOB is past its nextUpdate: a newer one is overdue",
                metadata: ["metadata.next_update": "\(index.nextUpdate)", "metadata.serial": "\(index.serialNumber)"])
        }
    }
}
