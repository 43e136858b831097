// swift-tools-version: 6.1
// Benchmarks for UMFA, kept out of the main package so the test build never compiles them.
// Run everything with `scripts/bench.sh` (release build, writes BENCHMARKS.md).
import Foundation
import PackageDescription

// A path dependency is identified by its folder name, which depends on where UMFA was cloned.
let umfa = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "UMFABenchmarks",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "umfa-bench", targets: ["UMFABench"])],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        .executableTarget(
            name: "UMFABench",
            dependencies: [
                .product(name: "UMFAWebAuthn", package: umfa),
                .product(name: "UMFAWebAuthnTypes", package: umfa),
                .product(name: "UMFAEncoding", package: umfa),
                .product(name: "UMFAAuthenticator", package: umfa),
                .product(name: "UMFAContract", package: umfa),
                .product(name: "UMFAJOSE", package: umfa),
                .product(name: "UMFATokens", package: umfa),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
