// swift-tools-version: 6.1
import PackageDescription

// RS256 token signatures go through the system's OpenSSL 3 libcrypto on Linux (Debian:
// libssl-dev), whose RSA-2048 code uses AVX-512 IFMA where the CPU has it and BoringSSL's does
// not; `UMFA_RSA_BORINGSSL=1 swift build` leaves it out, and then swift-crypto signs them.
// docs/operators/keys.md says more.
let rsaThroughSystemLibcrypto = Context.environment["UMFA_RSA_BORINGSSL"] == nil

let package = Package(
    name: "UMFA",
    // The oldest releases with `Synchronization.Mutex`, which the SDK's shared state uses; Linux
    // needs no entry. scripts/check-sdk-availability.py keeps the SDK within these.
    platforms: [.macOS(.v15), .iOS(.v18)],
    // What users import (CONTRIBUTING.md, "Products and the public API"): the SDK, its TLS
    // transport, the relying-party core for embedding and the `umfa` executable. A library lists
    // every module its public API shows; the server, storage, tokens, JOSE and QR modules share
    // their declarations with the package's other targets through `package` access.
    // scripts/api-check.sh holds the libraries' public API to the recorded api/baseline.
    products: [
        .library(
            name: "UMFA",
            targets: [
                "UMFA", "UMFAAuthenticator", "UMFAContract", "UMFAWebAuthnModel", "UMFAWebAuthnTypes",
                "UMFAEncoding", "UMFACBOR",
            ]
        ),
        .library(name: "UMFATLSTransport", targets: ["UMFATLSTransport"]),
        .library(
            name: "UMFAWebAuthn",
            targets: ["UMFAWebAuthn", "UMFAWebAuthnModel", "UMFAWebAuthnTypes", "UMFAEncoding", "UMFACBOR"]
        ),
        .executable(name: "umfa", targets: ["UMFACLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        // umfa-bench's HTTP load client (HummingbirdTesting builds it for the tests already).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // `swift package generate-documentation` (scripts/docs-build.sh): the SDK's DocC catalogue.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Traces (docs/operators/tracing.md): the tracing API in the server's modules, and the
        // OTLP/HTTP exporter in `umfa serve` only; the gRPC exporter's trait stays off.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibcrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The PKCS #11 calling interface, for token signing keys in an HSM (docs/operators/hsm.md).
        .target(name: "CPKCS11"),
        .target(name: "UMFACBOR"),
        .target(name: "UMFAEncoding"),
        // JWS and JWK (RFC 7515, 7517, 7518, 7519, 8037): typed headers and claims, compact
        // serialisation, ES256, RS256, EdDSA and HMAC; under the server, the SDK and the tests.
        .target(
            name: "UMFAJOSE",
            dependencies: [
                "UMFAEncoding",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The WebAuthn JSON wire types (options, responses, COSE algorithm ids), without the
        // relying-party core's X.509 and ASN.1: what the contract and its clients need.
        .target(name: "UMFAWebAuthnTypes", dependencies: ["UMFAEncoding"]),
        // The WebAuthn binary structures (authenticator data, attestation object, client data,
        // COSE keys) and `WebAuthnError`, without X.509: what an authenticator and the SDK build.
        .target(
            name: "UMFAWebAuthnModel",
            dependencies: [
                "UMFACBOR", "UMFAEncoding", "UMFAWebAuthnTypes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "UMFAQR",
            dependencies: [
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(
            name: "UMFAWebAuthn",
            dependencies: [
                "UMFACBOR",
                "UMFAEncoding",
                "UMFAJOSE",
                "UMFAWebAuthnTypes",
                "UMFAWebAuthnModel",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "UMFAAuthenticator",
            dependencies: [
                "UMFACBOR",
                "UMFAEncoding",
                "UMFAWebAuthnModel",
                "UMFAWebAuthnTypes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "UMFAContract",
            dependencies: ["UMFAWebAuthnTypes", "UMFAEncoding", .product(name: "Crypto", package: "swift-crypto")],
            // Generated from the contract by `umfa openapi` (scripts/gen-docs.sh); served by the server.
            exclude: ["OpenAPI/openapi.yaml"]
        ),
        .target(
            name: "UMFA",
            dependencies: [
                "UMFAWebAuthnModel", "UMFAWebAuthnTypes", "UMFAAuthenticator", "UMFAContract", "UMFAEncoding",
                "UMFAJOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The SDK's HTTPS transport with a client certificate and server public-key pinning
        // (swift-nio-ssl), outside `UMFA` so the core SDK stays free of NIO.
        .target(
            name: "UMFATLSTransport",
            dependencies: [
                "UMFA",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "UMFAStorage",
            dependencies: [
                "UMFAEncoding",
                // The token service's store port (signing keys) is declared there; storage conforms.
                "UMFATokens",
                // Configured objects are stored as the contract's values (an OAuth client's settings
                // are its ClientMetadata document).
                "UMFAContract",
                "CSQLite",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "UMFATokens",
            dependencies: [
                "UMFAJOSE",
                "UMFAEncoding",
                "CPKCS11",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
                + (rsaThroughSystemLibcrypto
                    ? [.target(name: "CLibcrypto", condition: .when(platforms: [.linux]))] : []),
            swiftSettings: rsaThroughSystemLibcrypto
                ? [.define("UMFA_SYSTEM_LIBCRYPTO", .when(platforms: [.linux]))] : []
        ),
        .target(
            name: "UMFAServer",
            dependencies: [
                "UMFAWebAuthn",
                "UMFAWebAuthnTypes",
                "UMFAContract",
                "UMFAStorage",
                "UMFATokens",
                "UMFAJOSE",
                "UMFAEncoding",
                "UMFAQR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [
                .embedInCode("Resources/Demo/index.html"), .embedInCode("Resources/Demo/demo.css"),
                .embedInCode("Resources/Demo/demo.js"),
                .embedInCode("Resources/Hosted/hosted.html"), .embedInCode("Resources/Hosted/hosted-error.html"),
                .embedInCode("Resources/Hosted/hosted-logout.html"),
                .embedInCode("Resources/Hosted/hosted-recovery.html"),
                .embedInCode("Resources/Hosted/hosted-recovery.js"),
                .embedInCode("Resources/Hosted/hosted-account.html"),
                .embedInCode("Resources/Hosted/hosted-account.js"),
                .embedInCode("Resources/Hosted/hosted-device.html"),
                .embedInCode("Resources/Hosted/hosted-device.js"),
                .embedInCode("Resources/Hosted/hosted-page.js"),
                .embedInCode("Resources/Hosted/hosted.css"), .embedInCode("Resources/Hosted/hosted.js"),
                .embedInCode("Resources/Shared/webauthn-json.js"), .embedInCode("Resources/Console/console.html"),
                .embedInCode("Resources/Console/console.css"), .embedInCode("Resources/Console/console.js"),
            ]
        ),
        .executableTarget(
            name: "UMFACLI",
            dependencies: [
                "UMFAWebAuthn",
                "UMFAWebAuthnTypes",
                "UMFAContract",
                "UMFAAuthenticator",
                "UMFAServer",
                "UMFAStorage",
                "UMFATokens",
                "UMFAEncoding",
                "UMFA",
                "UMFAQR",
                "UMFATLSTransport",
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `umfa-bench`, the measurements of docs/performance/ (scripts/bench.sh builds it in
        // release): a target of this package, so it reaches the token service's `package` API.
        .executableTarget(
            name: "umfa-bench",
            dependencies: [
                "UMFAWebAuthn", "UMFAWebAuthnTypes", "UMFAEncoding", "UMFAAuthenticator", "UMFAContract", "UMFAJOSE",
                "UMFATokens",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/Sources/UMFABench"
        ),
        // The documentation's ```swift compile snippets, generated by scripts/doc-examples.py
        // --swift, so that `swift build` fails when a documented snippet no longer compiles. Add
        // the modules the snippets import (such as "UMFA") to the dependencies.
        .executableTarget(
            name: "DocSnippets",
            dependencies: ["UMFA", "UMFATLSTransport", "UMFAWebAuthn", "UMFAWebAuthnTypes", "UMFAEncoding"],
            path: "Examples/DocSnippets"),
        // Helpers that several test targets share: a seeded generator, a hand-moved clock, JSON
        // literals, a DPoP key, a private PostgreSQL cluster.
        .target(
            name: "UMFATestSupport",
            dependencies: [
                "UMFAEncoding", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/UMFATestSupport"
        ),
        .target(
            name: "UMFAAttestationTestSupport",
            dependencies: [
                "UMFAWebAuthn", "UMFACBOR", "UMFAEncoding", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/UMFAAttestationTestSupport"
        ),
        .testTarget(
            name: "UMFAJOSETests",
            dependencies: [
                "UMFAJOSE", "UMFAEncoding", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "UMFAEncodingTests", dependencies: ["UMFAEncoding", "UMFATestSupport"]),
        .testTarget(
            name: "UMFATokensTests",
            dependencies: [
                "UMFATokens", "UMFAJOSE", "UMFAEncoding", "UMFAStorage", "UMFAWebAuthn", "UMFATestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            // RS256SignerTests expect the system libcrypto where UMFATokens signs with it.
            swiftSettings: rsaThroughSystemLibcrypto
                ? [.define("UMFA_SYSTEM_LIBCRYPTO", .when(platforms: [.linux]))] : []
        ),
        .testTarget(
            name: "UMFAContractTests",
            dependencies: ["UMFAContract", "UMFAEncoding", .product(name: "Yams", package: "Yams")]
        ),
        .testTarget(
            name: "UMFACBORTests", dependencies: ["UMFACBOR", "UMFATestSupport"], resources: [.copy("Resources")]),
        .testTarget(name: "UMFAQRTests", dependencies: ["UMFAQR"]),
        .testTarget(
            name: "UMFAWebAuthnTests",
            dependencies: [
                "UMFAWebAuthn",
                "UMFAWebAuthnModel",
                "UMFAWebAuthnTypes",
                "UMFACBOR",
                "UMFAEncoding",
                "UMFATestSupport",
                "UMFAAttestationTestSupport",
                "UMFAAuthenticator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "UMFAServerTests",
            dependencies: [
                "UMFAServer",
                "UMFAContract",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                "UMFAStorage",
                "UMFATokens",
                "UMFATestSupport",
                "UMFAAttestationTestSupport",
                "UMFAWebAuthn",
                "UMFAWebAuthnTypes",
                "UMFAEncoding",
                "UMFAAuthenticator",
                "UMFACBOR",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "UMFATests",
            dependencies: [
                "UMFA",
                "UMFATLSTransport",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                "UMFAContract",
                "UMFAServer",
                "UMFAAuthenticator",
                "UMFAWebAuthn",
                "UMFAWebAuthnTypes",
                "UMFAEncoding",
                "UMFATestSupport",
                "UMFAAttestationTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                // Client attestations (App Attest) made by a test CA for the DCR fallback tests.
                "UMFACBOR", .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "UMFAAuthenticatorTests",
            dependencies: [
                "UMFAAuthenticator", "UMFAWebAuthn", "UMFAWebAuthnTypes", "UMFAEncoding",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "UMFAStorageTests",
            dependencies: [
                "UMFAStorage", "UMFATokens", "UMFAEncoding", "UMFAContract", "UMFATestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
