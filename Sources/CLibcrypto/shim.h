// The system's OpenSSL 3 libcrypto (Debian: libssl-dev), for RS256 token signatures only:
// its RSA-2048 path uses AVX-512 IFMA where the CPU has it, which the BoringSSL that
// swift-crypto vendors does not (docs/operators: "RS256 signatures and the system libcrypto").
// BoringSSL's symbols are prefixed, so the two libraries do not clash in one process.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/x509.h>
