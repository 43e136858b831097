import Foundation
import Hummingbird
import NIOCore
import UMFAEncoding

/// The client address a request is counted under by the abuse limits: the connected peer's IP
/// address, or, when the server is configured to trust a reverse proxy, the last address that
/// proxy appended to `X-Forwarded-For`.
///
/// IPv6 addresses count per /64 (docs/contract.md §4): one subscriber usually holds a whole /64 and
/// may pick any address in it, so `2001:db8:1:2::5` and `2001:db8:1:2::6` are both
/// `2001:db8:1:2::/64`. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, from a dual-stack
/// listener) counts as its IPv4 address.
enum ClientAddress {
    private static let forwardedFor = HTTPFields.Element.Name("X-Forwarded-For")
    private static let forwardedStandard = HTTPFields.Element.Name("Forwarded")

    /// The address of `request` as ``RequestScopeMiddleware`` sets it on the context.
    static func of(_ request: Request, peer: SocketAddress?, trustForwardedFor: Bool) -> String {
        if trustForwardedFor, let name = forwardedFor, let forwarded = request.headers[name],
            // By byte: a client's U+0600 (a grapheme "Prepend") before the proxy's `,` would make
            // one Swift `Character` of both and hide the address the proxy added (docs/contract.md §4).
            let last = ASCIISplit.split(forwarded, at: ",").last.map(ASCIISplit.trimmingWhitespace), !last.isEmpty
        {
            return counted(String(last.unicodeScalars.prefix(64)))
        }
        return peer?.ipAddress.map(counted) ?? "unknown"
    }

    /// The form `address` is counted under: an IPv6 address as its /64 prefix
    /// (`2001:db8:1:2::/64`), an IPv4-mapped one as the IPv4 address, an IPv4 address as is
    /// (a `:port` a proxy appended dropped), anything else unchanged.
    static func counted(_ address: String) -> String {
        var text = Substring(address)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = text[text.index(after: text.startIndex)..<close]  // "[2001:db8::1]:443"
        }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }  // "fe80::1%eth0"
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(text), &v6) == 1 {
            var bytes = withUnsafeBytes(of: v6) { [UInt8]($0) }
            if bytes[..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                return bytes[12...].map(String.init).joined(separator: ".")
            }
            for index in 8..<16 { bytes[index] = 0 }
            withUnsafeMutableBytes(of: &v6) { $0.copyBytes(from: bytes) }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return address }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/64"
        }
        // "192.0.2.1:5678", as some proxies write it.
        let host = text.split(separator: ":", omittingEmptySubsequences: false)
        var v4 = in_addr()
        if host.count == 2, inet_pton(AF_INET, String(host[0]), &v4) == 1 { return String(host[0]) }
        return address
    }

    /// Whether the request came straight from this machine: the connected peer is a loopback
    /// address and no proxy said it forwarded the request for someone else (`X-Forwarded-For`
    /// or `Forwarded`), whatever `UMFA_TRUST_FORWARDED_FOR` says. No socket (in-process tests)
    /// is not loopback.
    static func isLocal(_ request: Request, peer: SocketAddress?) -> Bool {
        guard let address = peer?.ipAddress, let forwarded = forwardedFor, let standard = forwardedStandard,
            request.headers[forwarded] == nil, request.headers[standard] == nil
        else { return false }
        return counted(address).hasPrefix("127.") || isIPv6Loopback(address)
    }

    /// Whether `address` is `::1`, however written.
    private static func isIPv6Loopback(_ address: String) -> Bool {
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { [UInt8]($0) }
        return bytes[..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
    }
}
