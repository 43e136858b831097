import Testing

@testable import UMFAServer

/// The addresses a self-registered client's URI may not reach (``OutboundAddress``).
@Suite("Outbound addresses")
struct OutboundAddressTests {
    @Test(
        "loopback, private, shared, link-local, unique-local, mapped and multicast addresses are internal",
        arguments: [
            "127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.0.1", "100.64.0.1", "169.254.169.254",
            "0.0.0.0", "224.0.0.1", "::1", "::", "fd12::1", "fe80::1", "ff02::1", "::ffff:10.0.0.1", "[::1]",
            "localhost",
            "api.localhost",
            // IPv6 forms of internal IPv4 addresses, and the other ranges that are nobody's.
            "::10.0.0.1", "64:ff9b::10.0.0.1", "64:ff9b::127.0.0.1", "2002:0a00:0001::1", "2002:7f00:0001::",
            "64:ff9b:1::1", "fec0::1", "198.18.0.1", "198.19.255.1", "192.0.0.8",
        ])
    func internalAddresses(host: String) {
        #expect(OutboundAddress.isInternalLiteral(host))
    }

    @Test(
        "public addresses and names are not literals of the server's network",
        arguments: [
            "8.8.8.8", "172.32.0.1", "100.128.0.1", "2001:4860::8888", "rp.example", "[2001:db8::1]",
            "64:ff9b::8.8.8.8", "2002:0808:0808::1", "198.20.0.1", "192.0.1.1",
        ])
    func publicAddresses(host: String) {
        #expect(!OutboundAddress.isInternalLiteral(host))
    }

    @Test("a name resolving to loopback is not public; one that resolves to nothing is not either")
    func resolution() async {
        #expect(await !OutboundAddress.resolvesToPublicOnly("localhost"))
        #expect(await !OutboundAddress.resolvesToPublicOnly("no-such-host.invalid"))
        #expect(await OutboundAddress.resolvesToPublicOnly("93.184.215.14"))
    }
}
