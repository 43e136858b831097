/// Reads the common shape of a DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3, `SEQUENCE { r INTEGER,
/// s INTEGER }`) straight into the `r ‖ s` form swift-crypto verifies.
///
/// Only canonical DER with short-form lengths is read here: any other input answers `nil`, and
/// swift-crypto's ASN.1 parser (`ECDSASignature(derRepresentation:)`) decides instead. So this
/// path only ever gives what the full parse would give; it saves that parse's allocations on
/// every assertion.
package enum ECDSASignatureDER {
    /// `r ‖ s`, each left-padded with zeros to `size` bytes; `nil` when `der` is not the
    /// canonical shape above or a value does not fit in `size` bytes.
    package static func raw(_ der: [UInt8], size: Int) -> [UInt8]? {
        guard der.count >= 8, der.count < 0x82, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var raw = [UInt8](repeating: 0, count: 2 * size)
        var position = 2
        for half in 0..<2 {
            guard position + 2 < der.count, der[position] == 0x02 else { return nil }
            let length = Int(der[position + 1])
            let start = position + 2
            guard length >= 1, start + length <= der.count else { return nil }
            var value = der[start..<(start + length)]
            // Positive, and minimal: a leading zero only when the next byte has its top bit set.
            guard value[start] < 0x80 else { return nil }
            if value[start] == 0 {
                guard length > 1, value[start + 1] >= 0x80 else { return nil }
                value = value.dropFirst()
            }
            guard value.count <= size else { return nil }
            let end = (half + 1) * size
            raw.replaceSubrange((end - value.count)..<end, with: value)
            position = start + length
        }
        guard position == der.count else { return nil }
        return raw
    }
}
