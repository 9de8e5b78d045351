// swift-tools-version: 6.1
// AuthHub's benchmarks, in a package of their own so that library users and `swift test`
// never resolve the benchmark dependencies. Run them with `Benchmarks/run`.
import PackageDescription

let package = Package(
    name: "AuthHubBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "AuthHub", path: ".."),
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.110.0"),
        .package(url: "https://github.com/vapor/jwt.git", from: "5.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "authhub-bench",
            dependencies: [
                .product(name: "AuthHub", package: "AuthHub"),
                .product(name: "AuthHubOIDC", package: "AuthHub"),
                .product(name: "AuthHubAuth0", package: "AuthHub"),
                .product(name: "AuthHubFirebase", package: "AuthHub"),
                .product(name: "AuthHubProviders", package: "AuthHub"),
                .product(name: "AuthHubEmulator", package: "AuthHub"),
                .product(name: "AuthHubHummingbird", package: "AuthHub"),
                .product(name: "AuthHubVapor", package: "AuthHub"),
                .product(name: "AuthHubWebCore", package: "AuthHub"),
                .product(name: "AuthHubPostgres", package: "AuthHub"),
                .product(name: "AuthHubAsyncHTTPClient", package: "AuthHub"),
                .product(name: "AuthHubTesting", package: "AuthHub"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "JWT", package: "jwt"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
