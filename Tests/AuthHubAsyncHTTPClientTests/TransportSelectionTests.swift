import AuthHub
import AuthHubAsyncHTTPClient
import AuthHubEmulator
import AuthHubProviders
import AuthHubTesting
import Foundation
import Testing

/// `"transport"` in providers.json: the config's choice applies when the code passed no transport;
/// a transport passed in code wins; a name no registered factory builds is a clear error.
@Suite struct TransportSelectionTests {
    static let registry = ProviderRegistry.builtIn.registering(transportFactory: AsyncHTTPClientTransportFactory())

    static func config(transport: String?, domain: String = "https://tenant.example.com") -> Data {
        let field = transport.map { #""transport": "\#($0)","# } ?? ""
        return Data("""
        {"environments": {"dev": {\(field) "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(domain)", "clientId": "c",
                         "connection": "Username-Password-Authentication"}]}}}
        """.utf8)
    }

    static func environment(_ transport: String?, registry: ProviderRegistry = registry, domain: String = "https://tenant.example.com") throws
        -> EnvironmentConfiguration {
        try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: config(transport: transport, domain: domain))
    }

    @Test func theConfiguredTransportIsBuiltWhenTheCodePassedNone() throws {
        let hub = try AuthHub(environment: try Self.environment("async-http-client"), registry: Self.registry)
        #expect(hub.environment.transport == "async-http-client")
        #expect(hub.context.transport is AsyncHTTPClientTransport)
    }

    @Test func urlSessionIsTheDefaultAndCanBeNamed() throws {
        for name in [nil, "urlsession"] {
            let hub = try AuthHub(environment: try Self.environment(name), registry: Self.registry)
            #expect(hub.context.transport is URLSessionTransport, "\(String(describing: name))")
        }
    }

    @Test func aTransportPassedInCodeWins() throws {
        let stub = StubTransport()
        let hub = try AuthHub(environment: try Self.environment("async-http-client"), registry: Self.registry,
                              context: ProviderContext(transport: stub))
        #expect(hub.context.transport is StubTransport)
        var assigned = ProviderContext()
        #expect(assigned.explicitTransport == nil)
        assigned.transport = stub
        let other = try AuthHub(environment: try Self.environment("async-http-client"), registry: Self.registry, context: assigned)
        #expect(other.context.transport is StubTransport)
    }

    @Test func withoutTheFactoryTheHubExplainsWhatToRegister() throws {
        // Validation knows the name (as it knows the postgres store); building needs the module.
        let environment = try Self.environment("async-http-client", registry: .builtIn)
        let error = try #require(throws: AuthError.self) { try AuthHub(environment: environment, registry: .builtIn) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("AuthHubAsyncHTTPClient") && error.message.contains("registering(transportFactory:"))
    }

    @Test func anUnknownTransportIsAProblemAtItsPath() throws {
        let problems = ConfigLoader(registry: Self.registry, environmentVariables: [:]).validate(data: Self.config(transport: "curl"))
        #expect(problems == [ConfigProblem(path: "environments.dev.transport", message: "unknown transport 'curl' (known: async-http-client, urlsession)")])
    }

    /// Sign-in against the emulator's Auth0 tenant with the transport chosen in providers.json.
    @Test func signsInAgainstTheEmulatorThroughAsyncHTTPClient() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-ahc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("providers.json")
        try Self.config(transport: "async-http-client", domain: emulator.url("/auth0").absoluteString).write(to: path)
        let hub = try AuthHub.load(configPath: path.path, registry: Self.registry, environmentVariables: [:])
        #expect(hub.context.transport is AsyncHTTPClientTransport)

        let seed = try await hub.context.transport.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                                                        body: Data(#"{"email":"ahc@example.com","password":"correct horse battery staple"}"#.utf8))
        #expect(seed.status == 201)
        let session = try await hub.signIn(.password(identifier: "ahc@example.com", password: Secret("correct horse battery staple")))
        #expect(session.providerID == "auth0")
        #expect(session.claims["email"]?.stringValue == "ahc@example.com")
        let wrong = await #expect(throws: AuthError.self) {
            try await hub.signIn(.password(identifier: "ahc@example.com", password: Secret("wrong")))
        }
        #expect(wrong?.code == .invalidCredentials)
    }
}
