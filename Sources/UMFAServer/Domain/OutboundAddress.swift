import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the server may send a request on behalf of a client that registered itself (RFC 7591):
/// only to public addresses. A self-registered client's `backchannel_logout_uri` is anyone's
/// choice, and the server's own network (loopback, private, link-local, unique-local, shared
/// address space) must not be reachable through it (server-side request forgery).
enum OutboundAddress {
    /// Whether `host` is an IP literal of a non-public address, or `localhost`.
    static func isInternalLiteral(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        guard let bytes = literal(name) else { return false }
        return !isPublic(bytes)
    }

    /// Whether every address `host` resolves to is public; `false` when it resolves to none.
    static func resolvesToPublicOnly(_ host: String) async -> Bool {
        let name = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if let bytes = literal(name) { return isPublic(bytes) }
        // getaddrinfo blocks: off the cooperative threads.
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let addresses = resolve(name)
                continuation.resume(returning: !addresses.isEmpty && addresses.allSatisfy(isPublic))
            }
        }
    }

    /// The address bytes of an IPv4 or IPv6 literal.
    static func literal(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Whether an address (4 or 16 bytes) is public: not unspecified, loopback, private
    /// (RFC 1918), shared (RFC 6598), link-local, benchmarking (RFC 2544), IETF protocol
    /// assignments (RFC 6890), multicast or reserved; for IPv6 also not unique-local
    /// (fc00::/7), site-local (fec0::/10) or local-use NAT64 (64:ff9b:1::/48), and an IPv6
    /// address that carries an IPv4 one (mapped ::ffff:0:0/96, compatible ::/96, NAT64
    /// 64:ff9b::/96, 6to4 2002::/16) is judged as that IPv4 address.
    static func isPublic(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 16 {
            if bytes.allSatisfy({ $0 == 0 }) || bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return false }
            if let embedded = embeddedIPv4(bytes) { return isPublic(embedded) }
            if bytes[0] & 0xfe == 0xfc { return false }  // unique local
            if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 { return false }  // link local
            if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0xc0 { return false }  // site local
            if bytes[0..<6] == [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01] { return false }  // local-use NAT64
            if bytes[0] == 0xff { return false }  // multicast
            return true
        }
        guard bytes.count == 4 else { return false }
        switch (bytes[0], bytes[1], bytes[2]) {
        case (0, _, _), (10, _, _), (127, _, _), (169, 254, _), (192, 168, _): return false
        case (172, 16...31, _), (100, 64...127, _), (198, 18...19, _), (192, 0, 0): return false
        case (224...255, _, _): return false
        default: return true
        }
    }

    /// The IPv4 address an IPv6 address carries: IPv4-mapped, IPv4-compatible, NAT64's
    /// well-known prefix, or 6to4.
    private static func embeddedIPv4(_ bytes: [UInt8]) -> [UInt8]? {
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return Array(bytes[12...]) }
        if bytes[0..<12].allSatisfy({ $0 == 0 }) { return Array(bytes[12...]) }
        if bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return Array(bytes[12...]) }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return Array(bytes[2..<6]) }
        return nil
    }

    private static func resolve(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if info.pointee.ai_family == AF_INET, let address = info.pointee.ai_addr {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var value = pointer.pointee.sin_addr
                    addresses.append(withUnsafeBytes(of: &value) { Array($0) })
                }
            } else if info.pointee.ai_family == AF_INET6, let address = info.pointee.ai_addr {
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var value = pointer.pointee.sin6_addr
                    addresses.append(withUnsafeBytes(of: &value) { Array($0) })
                }
            }
            cursor = info.pointee.ai_next
        }
        return addresses
    }
}
