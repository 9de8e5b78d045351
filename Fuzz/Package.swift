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
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
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
                .product(name: "AuthHubHummingbird", package: "AuthHub"),
                .product(name: "AuthHubWebCore", package: "AuthHub"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
