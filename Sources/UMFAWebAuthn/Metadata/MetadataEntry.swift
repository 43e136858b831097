import Foundation
import X509

/// One authenticator model in a FIDO Metadata Service (MDS3) BLOB, reduced to what
/// registration uses: its name, attestation roots and status reports.
public struct MetadataEntry: Sendable {
    /// The AAGUID (lower-case UUID string).
    public let aaguid: String
    /// The metadata statement's `description`, such as "YubiKey 5 Series with NFC".
    public let description: String?
    /// The metadata statement's `attestationRootCertificates`.
    public let attestationRoots: [Certificate]
    /// The status reports, as listed.
    public let statusReports: [StatusReport]

    /// One `StatusReport` (FIDO MDS3 §3.1.3).
    public struct StatusReport: Sendable, Hashable {
        /// The `status`, such as `FIDO_CERTIFIED` or `REVOKED`.
        public let status: String
        /// The `effectiveDate` (ISO 8601 date), when given.
        public let effectiveDate: String?

        /// Creates a report.
        public init(status: String, effectiveDate: String?) {
            self.status = status
            self.effectiveDate = effectiveDate
        }
    }

    /// Statuses that make UMFA refuse the model: it was revoked, or a key was compromised.
    public static let refusedStatuses: Set<String> = [
        "REVOKED", "ATTESTATION_KEY_COMPROMISE", "USER_KEY_REMOTE_COMPROMISE", "USER_KEY_PHYSICAL_COMPROMISE",
    ]

    /// Creates an entry.
    public init(aaguid: String, description: String?, attestationRoots: [Certificate], statusReports: [StatusReport]) {
        self.aaguid = aaguid.lowercased()
        self.description = description
        self.attestationRoots = attestationRoots
        self.statusReports = statusReports
    }

    /// The first report, in the order listed, whose status makes the model refused at `time`
    /// (a report whose effective date lies after `time` does not count yet). A later
    /// "fixed" report does not clear it: devices already made keep their flaw.
    public func refusingReport(at time: Date) -> StatusReport? {
        statusReports.first { report in
            guard Self.refusedStatuses.contains(report.status) else { return false }
            guard let text = report.effectiveDate, let date = Self.date(text) else { return true }
            return date <= time
        }
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: String(text.prefix(10)))
    }
}
