// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "AuthHub",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "AuthHub", targets: ["AuthHub"]),
        .library(name: "AuthHubOIDC", targets: ["AuthHubOIDC"]),
        .library(name: "AuthHubAuth0", targets: ["AuthHubAuth0"]),
        .library(name: "AuthHubFirebase", targets: ["AuthHubFirebase"]),
        .library(name: "AuthHubOpenfort", targets: ["AuthHubOpenfort"]),
        .library(name: "AuthHubTurnkey", targets: ["AuthHubTurnkey"]),
        .library(name: "AuthHubFactors", targets: ["AuthHubFactors"]),
        .library(name: "AuthHubProviders", targets: ["AuthHubProviders"]),
        .library(name: "AuthHubEmulator", targets: ["AuthHubEmulator"]),
        .library(name: "AuthHubTesting", targets: ["AuthHubTesting"]),
        .library(name: "AuthHubWebCore", targets: ["AuthHubWebCore"]),
        .library(name: "AuthHubHummingbird", targets: ["AuthHubHummingbird"]),
        .library(name: "AuthHubVapor", targets: ["AuthHubVapor"]),
        .library(name: "AuthHubPostgres", targets: ["AuthHubPostgres"]),
        .library(name: "AuthHubAsyncHTTPClient", targets: ["AuthHubAsyncHTTPClient"]),
        .executable(name: "authhub", targets: ["authhub"]),
        .plugin(name: "ValidateProviders", targets: ["ValidateProviders"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.110.0"),
    ],
    targets: [
        .target(
            name: "AuthHub",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "AuthHubOIDC",
            dependencies: [
                "AuthHub", .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(name: "AuthHubAuth0", dependencies: ["AuthHubOIDC", "AuthHub"]),
        .target(name: "AuthHubFirebase", dependencies: ["AuthHub", "AuthHubFactors", .product(name: "JWTKit", package: "jwt-kit")]),
        .target(name: "AuthHubOpenfort", dependencies: ["AuthHub"]),
        .target(
            name: "AuthHubFactors",
            dependencies: ["AuthHub", .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto")]
        ),
        .target(
            name: "AuthHubTurnkey",
            dependencies: ["AuthHub", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "AuthHubProviders",
            dependencies: ["AuthHub", "AuthHubOIDC", "AuthHubAuth0", "AuthHubFactors", "AuthHubFirebase", "AuthHubOpenfort", "AuthHubTurnkey"]
        ),
        .target(
            name: "AuthHubEmulator",
            dependencies: [
                "AuthHub", "AuthHubFactors",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The framework-neutral web core (swift-http-types in and out); the adapters below are glue.
        .target(
            name: "AuthHubWebCore",
            dependencies: [
                "AuthHub", "AuthHubOIDC", "AuthHubFactors",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        .target(
            name: "AuthHubHummingbird",
            dependencies: [
                "AuthHub", "AuthHubOIDC", "AuthHubWebCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ]
        ),
        // The Vapor adapter: a product of its own, so that no other product builds Vapor.
        .target(
            name: "AuthHubVapor",
            dependencies: [
                "AuthHub", "AuthHubOIDC", "AuthHubWebCore", "AuthHubAsyncHTTPClient",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The example web apps' pages, the same for both frameworks.
        .target(
            name: "AuthHubExamplePages",
            dependencies: ["AuthHub", "AuthHubWebCore"],
            path: "Examples/Shared/Sources/AuthHubExamplePages"
        ),
        // The example web app (Examples/WebApp): a library the demo drives, and its executable.
        .target(
            name: "AuthHubWebExample",
            dependencies: [
                "AuthHub", "AuthHubHummingbird", "AuthHubExamplePages",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            path: "Examples/WebApp/Sources/AuthHubWebExample"
        ),
        .executableTarget(
            name: "authhub-webapp",
            dependencies: ["AuthHub", "AuthHubProviders", "AuthHubPostgres", "AuthHubAsyncHTTPClient", "AuthHubWebExample",
                           "AuthHubExamplePages", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Examples/WebApp/Sources/authhub-webapp"
        ),
        // The Vapor example web app (Examples/VaporApp): the same pages on AuthHubVapor; a library the
        // demo drives, and its executable.
        .target(
            name: "AuthHubVaporExample",
            dependencies: ["AuthHub", "AuthHubVapor", "AuthHubExamplePages", .product(name: "Vapor", package: "vapor")],
            path: "Examples/VaporApp/Sources/AuthHubVaporExample"
        ),
        .executableTarget(
            name: "authhub-vaporapp",
            dependencies: ["AuthHub", "AuthHubProviders", "AuthHubPostgres", "AuthHubVapor", "AuthHubVaporExample", "AuthHubExamplePages",
                           .product(name: "Vapor", package: "vapor")],
            path: "Examples/VaporApp/Sources/authhub-vaporapp"
        ),
        .target(
            name: "AuthHubTesting",
            dependencies: [
                "AuthHub", "AuthHubFactors", "AuthHubWebCore", .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "AuthHubPostgres",
            dependencies: [
                "AuthHub", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // An HTTPTransport over async-http-client, for servers that run SwiftNIO: a product of its own,
        // so that users of the default transport never build SwiftNIO for it.
        .target(
            name: "AuthHubAsyncHTTPClient",
            dependencies: [
                "AuthHub",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "authhub",
            dependencies: [
                "AuthHub", "AuthHubProviders", "AuthHubEmulator", "AuthHubAuth0", "AuthHubOIDC", "AuthHubFactors", "AuthHubTurnkey",
                "AuthHubFirebase", "AuthHubOpenfort", "AuthHubPostgres", "AuthHubWebExample", "AuthHubVaporExample", "AuthHubVapor", "AuthHubAsyncHTTPClient",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "AuthHubRefreshWorker",
            dependencies: [
                "AuthHub", "AuthHubProviders", "AuthHubPostgres", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .plugin(
            name: "ValidateProviders",
            capability: .command(
                intent: .custom(verb: "validate-providers", description: "Validate providers.json for every environment")
            ),
            dependencies: ["authhub"]
        ),
        .testTarget(
            name: "AuthHubTests",
            dependencies: [
                "AuthHub", "AuthHubTesting", "AuthHubProviders", "AuthHubAuth0", "AuthHubOIDC", "AuthHubFirebase", "AuthHubOpenfort",
                "AuthHubTurnkey",
                // Not imported: the cross-process refresh tests run the built `AuthHubRefreshWorker` binary.
                "AuthHubRefreshWorker",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "AuthHubFactorsTests",
            dependencies: [
                "AuthHubFactors", "AuthHub", "AuthHubTesting", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "AuthHubAuth0Tests", dependencies: ["AuthHubAuth0", "AuthHubOIDC", "AuthHub", "AuthHubTesting", "AuthHubFactors"]),
        .testTarget(
            name: "AuthHubIntegrationTests",
            dependencies: [
                "AuthHub", "AuthHubAuth0", "AuthHubOIDC", "AuthHubFirebase", "AuthHubOpenfort", "AuthHubTurnkey", "AuthHubEmulator",
                "AuthHubFactors", "AuthHubTesting", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "AuthHubFirebaseTests",
            dependencies: ["AuthHubFirebase", "AuthHub", "AuthHubFactors", "AuthHubTesting", .product(name: "JWTKit", package: "jwt-kit")]
        ),
        .testTarget(
            name: "AuthHubWebCoreTests",
            dependencies: ["AuthHubWebCore", "AuthHub", "AuthHubAuth0", "AuthHubOIDC", "AuthHubFactors", "AuthHubTesting", "AuthHubWebTestSupport",
                           .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "_CryptoExtras", package: "swift-crypto")]
        ),
        // The emulator-backed identity provider both web adapters' conformance tests use.
        .target(
            name: "AuthHubWebTestSupport",
            dependencies: ["AuthHub", "AuthHubAuth0", "AuthHubOIDC", "AuthHubFirebase", "AuthHubOpenfort", "AuthHubTurnkey", "AuthHubFactors", "AuthHubEmulator",
                           "AuthHubTesting", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/AuthHubWebTestSupport"
        ),
        .testTarget(
            name: "AuthHubVaporTests",
            dependencies: [
                "AuthHubVapor", "AuthHubWebCore", "AuthHub", "AuthHubTesting", "AuthHubWebTestSupport", "AuthHubVaporExample", "AuthHubAuth0", "AuthHubEmulator",
                "AuthHubAsyncHTTPClient",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "VaporTesting", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "AuthHubHummingbirdTests",
            dependencies: [
                "AuthHubHummingbird", "AuthHubWebCore", "AuthHub", "AuthHubAuth0", "AuthHubOIDC", "AuthHubFirebase", "AuthHubEmulator", "AuthHubTesting",
                "AuthHubWebTestSupport",
                "AuthHubProviders", "AuthHubWebExample", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(name: "AuthHubOpenfortTests", dependencies: ["AuthHubOpenfort", "AuthHub", "AuthHubTesting"]),
        .testTarget(
            name: "AuthHubPostgresTests",
            dependencies: [
                "AuthHubPostgres", "AuthHub", "AuthHubTesting", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // Not imported: the CLI test runs the built `authhub` binary against the database, the
                // replica tests the built `AuthHubRefreshWorker`.
                "authhub", "AuthHubRefreshWorker", "AuthHubEmulator", "AuthHubAuth0", "AuthHubProviders", "AuthHubWebCore",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "AuthHubTurnkeyTests",
            dependencies: ["AuthHubTurnkey", "AuthHubFactors", "AuthHub", "AuthHubTesting", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "AuthHubEmulatorTests",
            dependencies: [
                "AuthHubEmulator", "AuthHub", "AuthHubTesting", "AuthHubFactors", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "AuthHubAsyncHTTPClientTests",
            dependencies: [
                "AuthHubAsyncHTTPClient", "AuthHub", "AuthHubTesting", "AuthHubEmulator", "AuthHubProviders",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(name: "AuthHubCLITests", dependencies: ["authhub", "AuthHub", "AuthHubEmulator", "AuthHubFactors", "AuthHubAuth0", "AuthHubOIDC", "AuthHubFirebase", "AuthHubTesting",
                                                          .product(name: "HTTPTypes", package: "swift-http-types")]),
        // Every Swift example of README.md, the DocC articles and the doc comments, compiled (never run):
        // Generated/ is written by scripts/doc-examples; DocExampleContext.swift holds the names examples
        // may use without declaring them.
        .testTarget(
            name: "AuthHubDocExamplesTests",
            dependencies: [
                "AuthHub", "AuthHubProviders", "AuthHubOIDC", "AuthHubAuth0", "AuthHubFirebase", "AuthHubOpenfort", "AuthHubTurnkey",
                "AuthHubFactors", "AuthHubEmulator", "AuthHubTesting", "AuthHubHummingbird", "AuthHubPostgres", "AuthHubAsyncHTTPClient",
                "AuthHubVapor", "AuthHubWebCore",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "AuthHubOIDCTests",
            dependencies: [
                "AuthHubOIDC", "AuthHub", "AuthHubTesting",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
