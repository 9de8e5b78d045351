// swift-tools-version: 6.1
// AuthHub's coverage-guided fuzzing, in a package of its own so that library users and `swift test`
// never build it. One libFuzzer executable holds every harness (the library is linked once); the
// target is chosen with the AUTHHUB_FUZZ_TARGET environment variable. Build and run with `Fuzz/run`.
import PackageDescription

let package = Package(
    name: "AuthHubFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "AuthHub", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    ],
    targets: [
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "authhub-fuzz",
            dependencies: [
                "CFuzzerDriver",
                .product(name: "AuthHub", package: "AuthHub"),
                .product(name: "AuthHubOIDC", package: "AuthHub"),
                .product(name: "AuthHubAuth0", package: "AuthHub"),
                .product(name: "AuthHubFirebase", package: "AuthHub"),
                .product(name: "AuthHubOpenfort", package: "AuthHub"),
                .product(name: "AuthHubTurnkey", package: "AuthHub"),
                .product(name: "AuthHubFactors", package: "AuthHub"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
