// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets for UMFA's parsers and verifiers, kept out of the main package so its
/// build never needs the fuzzer runtime. Build with `scripts/fuzz.sh` (release, fuzzer + address
/// sanitizer); each executable is one libFuzzer target.
let targets = [
    "FuzzCBOR", "FuzzAttestationObject", "FuzzAuthenticatorData", "FuzzClientData", "FuzzCOSEKey",
    "FuzzAttestationFormats", "FuzzResponseJSON",
]

let package = Package(
    name: "UMFAFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "UMFA", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            // The relying-party core's product: its modules (CBOR, encodings, the WebAuthn types)
            // are what the fuzz targets parse with.
            dependencies: [.product(name: "UMFAWebAuthn", package: "UMFA")])
    ]
        + targets.map { name in
            .executableTarget(
                name: name,
                dependencies: ["FuzzSupport", .product(name: "UMFAWebAuthn", package: "UMFA")])
        },
    swiftLanguageModes: [.v6]
)
