import Foundation
import NIOSSL

/// The certificate a client presents in the TLS handshake (RFC 8705 §2: `tls_client_auth`,
/// `self_signed_tls_client_auth`) and its private key.
public struct TLSClientIdentity: Sendable {
    /// The client's certificate first, then any intermediates.
    public let certificateChain: [NIOSSLCertificate]
    /// The certificate's private key.
    public let privateKey: NIOSSLPrivateKey

    /// An identity from its parts.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) throws(TLSTransportError) {
        guard !certificateChain.isEmpty else { throw .invalidIdentity("the certificate chain is empty") }
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// An identity from PEM files: `certificatePath` holds the certificate (and the chain after
    /// it), `keyPath` the private key (PKCS#8, SEC 1 or PKCS#1; not encrypted).
    public static func pem(certificatePath: String, keyPath: String) throws(TLSTransportError) -> TLSClientIdentity {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw .invalidIdentity("no PEM certificate could be read from \(certificatePath)")
        }
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw .invalidIdentity("no PEM private key could be read from \(keyPath)")
        }
        return try TLSClientIdentity(certificateChain: chain, privateKey: key)
    }

    /// An identity from PEM text: the certificate (and chain) and the private key.
    public static func pem(certificate: String, key: String) throws(TLSTransportError) -> TLSClientIdentity {
        let chain: [NIOSSLCertificate]
        let privateKey: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(Array(certificate.utf8))
            privateKey = try NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem)
        } catch {
            throw .invalidIdentity("the PEM certificate or private key could not be read")
        }
        return try TLSClientIdentity(certificateChain: chain, privateKey: privateKey)
    }

    /// An identity from a PKCS#12 (`.p12`/`.pfx`) file and its passphrase.
    public static func pkcs12(path: String, passphrase: String) throws(TLSTransportError) -> TLSClientIdentity {
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(file: path, passphrase: Array(passphrase.utf8))
        } catch {
            throw .invalidIdentity("the PKCS#12 file \(path) could not be opened (wrong passphrase?)")
        }
        return try TLSClientIdentity(certificateChain: bundle.certificateChain, privateKey: bundle.privateKey)
    }

    /// An identity from PKCS#12 bytes and their passphrase.
    public static func pkcs12(_ data: Data, passphrase: String) throws(TLSTransportError) -> TLSClientIdentity {
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(buffer: Array(data), passphrase: Array(passphrase.utf8))
        } catch {
            throw .invalidIdentity("the PKCS#12 data could not be opened (wrong passphrase?)")
        }
        return try TLSClientIdentity(certificateChain: bundle.certificateChain, privateKey: bundle.privateKey)
    }
}

/// Where a ``TLSTransport`` gets its client identity: a ``TLSClientIdentity`` itself, or an
/// adapter over a platform store. On Apple platforms a keychain `SecIdentity` whose key cannot
/// leave the Secure Enclave fits behind this protocol with a `NIOSSLCustomPrivateKey` that signs
/// through `SecKeyCreateSignature` (the recipe is in docs/sdk-tls.md).
public protocol ClientIdentityProvider: Sendable {
    /// The identity to present.
    func clientIdentity() throws(TLSTransportError) -> TLSClientIdentity
}

extension TLSClientIdentity: ClientIdentityProvider {
    /// This identity.
    public func clientIdentity() throws(TLSTransportError) -> TLSClientIdentity { self }
}
