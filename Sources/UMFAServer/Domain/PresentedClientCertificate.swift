import Crypto
import Foundation
import UMFAEncoding

/// The X.509 certificate a client presented for this request (RFC 8705 §2): from the TLS
/// handshake on the mutual-TLS listener, or from the header a trusted TLS-terminating proxy set.
/// Services judge client authentication (§2.1, §2.2) and certificate binding (§3) by it; they
/// never see where it came from.
struct PresentedClientCertificate: Sendable, Equatable {
    /// The certificate, DER-encoded (the leaf; the chain is not used by RFC 8705's methods).
    let der: [UInt8]

    /// `x5t#S256`: base64url of the SHA-256 of the DER certificate (RFC 8705 §3.1).
    var thumbprintS256: String {
        Base64URL.encode(Array(SHA256.hash(data: der)))
    }
}
