import Foundation

/// An IP address or a CIDR range (`192.0.2.10`, `10.0.0.0/8`, `2001:db8::/32`), matched in
/// binary; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, from a dual-stack listener)
/// matches as its IPv4 address.
package struct IPAddressRange: Sendable, Equatable {
    /// The network's address bytes (4 or 16).
    let network: [UInt8]
    /// How many leading bits must match.
    let prefixLength: Int

    /// Parses `address` or `address/prefix`; `nil` when it is neither.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let maximum = bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maximum).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = maximum
        }
        network = bytes
    }

    /// Whether `address` (text, as a socket reports it) is in the range.
    package func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address), bytes.count == network.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(network, bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            guard mine & mask == theirs & mask else { return false }
            remaining -= bits
        }
        return true
    }

    /// The binary form of an IPv4 or IPv6 address (IPv4-mapped IPv6 as IPv4); `nil` otherwise.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        var address = text
        if let zone = address.firstIndex(of: "%") { address = String(address[..<zone]) }
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return Array(bytes[12...])
        }
        return bytes
    }
}
