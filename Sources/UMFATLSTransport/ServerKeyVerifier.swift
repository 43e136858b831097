import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import Synchronization
import X509

/// Judges the server's certificate chain in the handshake (NIOSSL's custom verification
/// callback): the chain by RFC 5280 and the host name, then the pins; or the pins alone.
struct ServerKeyVerifier: Sendable {
    let trust: TLSTransportConfiguration.ServerTrust
    /// The pins as raw 32-byte SHA-256 digests.
    let pins: Set<Data>
    /// The configured roots, parsed once.
    let roots: [Certificate]

    init(trust: TLSTransportConfiguration.ServerTrust, pins: [String]) throws(TLSTransportError) {
        self.trust = trust
        self.pins = try Set(pins.map { (pin) throws(TLSTransportError) in try Self.digest(ofPin: pin) })
        switch trust {
        case .system:
            roots = []
        case .certificates(let certificates):
            guard !certificates.isEmpty else { throw .invalidRoots("no root certificate to trust") }
            do {
                roots = try certificates.map { try Certificate(derEncoded: try $0.toDERBytes()) }
            } catch {
                throw .invalidRoots("a root certificate could not be read")
            }
        case .pinsOnly:
            guard !pins.isEmpty else { throw .invalidPin("pinsOnly trust needs at least one pin") }
            roots = []
        }
    }

    /// A pin's digest: base64 of 32 bytes, an optional `sha256/` prefix (RFC 7469 §2.4).
    static func digest(ofPin pin: String) throws(TLSTransportError) -> Data {
        var text = pin.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("sha256/") { text.removeFirst("sha256/".count) }
        guard let digest = Data(base64Encoded: text), digest.count == SHA256.byteCount else {
            throw .invalidPin("\(pin) is not the base64 SHA-256 digest of a SubjectPublicKeyInfo")
        }
        return digest
    }

    /// The pin of `certificate`: base64 SHA-256 of its DER SubjectPublicKeyInfo (RFC 7469 §2.4).
    static func pin(of certificate: Certificate) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate.publicKey)
        return Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
    }

    /// Judges `presented` (leaf first) for `host`; `nil` means trusted.
    func judge(_ presented: [NIOSSLCertificate], host: String) async -> TLSTransportError? {
        let chain: [Certificate]
        do {
            chain = try presented.map { try Certificate(derEncoded: try $0.toDERBytes()) }
        } catch {
            return .untrustedCertificate(host: host, reason: "the certificate could not be read")
        }
        guard let leaf = chain.first else {
            return .untrustedCertificate(host: host, reason: "no certificate was presented")
        }
        let keys: [Certificate]
        switch trust {
        case .pinsOnly:
            // Pins only: the server's own key is its identity; nothing else is looked at.
            keys = [leaf]
        case .system, .certificates:
            let store: CertificateStore
            if case .system = trust {
                store = CertificateStore.systemTrustRoots
            } else {
                store = CertificateStore(roots)
            }
            let isIP = IPv4Address(host) != nil || host.contains(":")
            var verifier = Verifier(rootCertificates: store) {
                RFC5280Policy()
                ServerIdentityPolicy(serverHostname: isIP ? nil : host, serverIP: isIP ? host : nil)
            }
            switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(chain.dropFirst())) {
            case .validCertificate(let validated):
                // RFC 7469 §2.6: a pin may name any key of the validated chain.
                keys = Array(validated)
            case .couldNotValidate(let failures):
                let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "no path to a trusted root"
                return .untrustedCertificate(host: host, reason: reason)
            }
        }
        if pins.isEmpty { return nil }
        for certificate in keys {
            guard let pin = try? Self.pin(of: certificate), let digest = Data(base64Encoded: pin) else { continue }
            if pins.contains(digest) { return nil }
        }
        return .pinMismatch(host: host)
    }
}

/// Where the handshake's verdict waits for the request that started it, with how far the
/// connection got (``ConnectionStage``), for an error that says where a connection ended.
final class VerdictBox: Sendable {
    private let verdict = Mutex<TLSTransportError?>(nil)
    private let reached = Mutex(ConnectionStage.connected)

    /// Notes that the connection got at least to `stage`.
    func reach(_ stage: ConnectionStage) { reached.withLock { $0 = max($0, stage) } }

    /// The furthest stage the connection reached.
    var stage: ConnectionStage { reached.withLock { $0 } }

    /// Keeps the first refusal.
    func refuse(_ error: TLSTransportError) { verdict.withLock { if $0 == nil { $0 = error } } }

    /// The refusal, if any.
    var refusal: TLSTransportError? { verdict.withLock { $0 } }
}

/// A dotted IPv4 literal, to tell an IP host from a name (RFC 6125 §6.2.1 vs §6.4).
private struct IPv4Address {
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return nil }
    }
}
