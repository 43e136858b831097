import Crypto
import Foundation
import _CryptoExtras

#if UMFA_SYSTEM_LIBCRYPTO
    import CLibcrypto
#endif

/// An RSA key that makes RS256 signatures (RFC 7518 §3.3: RSASSA-PKCS1-v1_5 over SHA-256).
///
/// A Linux build signs through the system's OpenSSL 3 libcrypto (the default; building with
/// `UMFA_RSA_BORINGSSL=1` in the environment leaves it out), whose RSA-2048 code uses AVX-512
/// IFMA where the CPU has it. Other builds, and a key libcrypto cannot read, sign through
/// swift-crypto's BoringSSL. RSASSA-PKCS1-v1_5 is deterministic (RFC 8017 §8.2.1), so both
/// give the same bytes for the same key and input.
package struct RS256Signer: Sendable {
    /// The key, as swift-crypto holds it (its public half, its DER form).
    package let key: _RSA.Signing.PrivateKey
    #if UMFA_SYSTEM_LIBCRYPTO
        private let systemKey: LibcryptoRSAKey?
    #endif

    /// A signer for `key`.
    package init(_ key: _RSA.Signing.PrivateKey) {
        self.key = key
        #if UMFA_SYSTEM_LIBCRYPTO
            systemKey = LibcryptoRSAKey(pkcs1DER: [UInt8](key.derRepresentation))
        #endif
    }

    /// The library its signatures come from, for the benchmarks.
    package var library: String {
        #if UMFA_SYSTEM_LIBCRYPTO
            if systemKey != nil { return Self.buildLibrary }
        #endif
        return Self.swiftCryptoLibrary
    }

    /// The library this build signs RS256 with, for the server's start-up log.
    package static var buildLibrary: String {
        #if UMFA_SYSTEM_LIBCRYPTO
            return LibcryptoRSAKey.version + " (system libcrypto)"
        #else
            return swiftCryptoLibrary
        #endif
    }

    static let swiftCryptoLibrary = "swift-crypto (BoringSSL)"

    /// The RS256 signature over `signingInput`: the RSASSA-PKCS1-v1_5 signature of its SHA-256
    /// digest, as long as the modulus.
    package func signature(for signingInput: Data) throws -> Data {
        #if UMFA_SYSTEM_LIBCRYPTO
            if let systemKey { return try systemKey.signature(for: signingInput) }
        #endif
        return try key.signature(for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5).rawRepresentation
    }
}

#if UMFA_SYSTEM_LIBCRYPTO
    /// An RSA private key held by libcrypto (`EVP_PKEY`), parsed once. OpenSSL 3 allows any
    /// number of threads to sign with one key at once; each signature has its own context.
    final class LibcryptoRSAKey: @unchecked Sendable {
        private let key: OpaquePointer
        private let size: Int

        /// The key of `pkcs1DER` (RFC 8017 §A.1.2 `RSAPrivateKey`); `nil` when libcrypto cannot
        /// read it as an RSA key.
        init?(pkcs1DER: [UInt8]) {
            let parsed: OpaquePointer? = pkcs1DER.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, buffer.count)
            }
            guard let parsed else {
                ERR_clear_error()
                return nil
            }
            key = parsed
            size = Int(EVP_PKEY_get_size(parsed))
        }

        deinit { EVP_PKEY_free(key) }

        /// The library's own version text, such as "OpenSSL 3.0.19 27 Jan 2026".
        static var version: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }

        /// `EVP_DigestSign` with SHA-256; RSA keys sign with PKCS #1 v1.5 padding by default.
        func signature(for message: Data) throws -> Data {
            guard let context = EVP_MD_CTX_new() else { throw LibcryptoError.signing }
            defer { EVP_MD_CTX_free(context) }
            var signature = Data(count: size)
            var length = size
            let signed = message.withUnsafeBytes { input in
                signature.withUnsafeMutableBytes { output in
                    EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1
                        && EVP_DigestSign(
                            context, output.bindMemory(to: UInt8.self).baseAddress, &length,
                            input.bindMemory(to: UInt8.self).baseAddress, input.count) == 1
                }
            }
            guard signed, length == size else {
                ERR_clear_error()
                throw LibcryptoError.signing
            }
            return signature
        }
    }

    /// libcrypto refused to sign; its error queue is cleared, and no key material is in the error.
    enum LibcryptoError: Error, CustomStringConvertible {
        case signing

        var description: String { "the system libcrypto could not make an RS256 signature" }
    }
#endif
