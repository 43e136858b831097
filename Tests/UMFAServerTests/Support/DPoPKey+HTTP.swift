import HTTPTypes
import UMFATestSupport

/// The shared DPoP test key, by its short name in this target.
typealias DPoPKey = UMFATestSupport.DPoPKey

extension DPoPKey {
    /// The `DPoP` request header (RFC 9449 §4.1).
    static let header = HTTPField.Name("DPoP") ?? .contentType
}
