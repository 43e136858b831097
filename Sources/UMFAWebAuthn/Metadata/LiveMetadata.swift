import Synchronization

/// FIDO metadata that may be replaced while ceremonies read it: a server that downloads a newer
/// metadata BLOB puts its index here, and every ``AttestationTrustAnchors`` copy holding this
/// object (``AttestationTrustAnchors/liveMetadata``) sees it at its next verification, without
/// a restart.
///
/// ```swift
/// let live = LiveMetadata()
/// var anchors = AttestationTrustAnchors.wellKnown()
/// anchors.liveMetadata = live
/// live.replace(with: try await MetadataIndex(blob: blob, root: root, at: Date()))
/// ```
public final class LiveMetadata: Sendable {
    private let held: Mutex<MetadataIndex?>

    /// Creates a holder, empty unless `index` is given.
    public init(_ index: MetadataIndex? = nil) {
        held = Mutex(index)
    }

    /// The index held now, if any.
    public var current: MetadataIndex? {
        held.withLock { $0 }
    }

    /// Puts `index` in place of the one held; verifications that already read the old one
    /// finish with it.
    public func replace(with index: MetadataIndex?) {
        held.withLock { $0 = index }
    }

    /// Puts `index` in place of the one held only when none is held or its serial number `no`
    /// is greater (FIDO Metadata Service 3.0 §3.1.8), comparing and replacing under one lock: of
    /// two replacements racing, the greater serial number is the one left held, never an older
    /// one.
    ///
    /// - Returns: the index held before the call, unchanged when `index` was not newer.
    @discardableResult
    public func replace(ifNewer index: MetadataIndex) -> MetadataIndex? {
        held.withLock { held in
            let before = held
            if before.map({ index.serialNumber > $0.serialNumber }) ?? true { held = index }
            return before
        }
    }
}
