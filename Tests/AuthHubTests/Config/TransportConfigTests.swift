import AuthHub
import AuthHubProviders
import AuthHubTesting
import Foundation
import Logging
import Testing

/// The environment-level `transport` field of providers.json, validated like every other field.
@Suite struct TransportConfigTests {
    static func document(_ transportJSON: String?) -> Data {
        let field = transportJSON.map { #""transport": \#($0),"# } ?? ""
        return Data("""
        {"environments": {"dev": {\(field) "providers": [{"id": "a", "type": "auth0", "domain": "tenant.example.com", "clientId": "c"}]}}}
        """.utf8)
    }

    /// A transport a third party registers under its own name.
    struct EchoFactory: TransportFactory {
        var transportName: String { "echo" }
        func makeTransport(logger: Logger) throws -> any HTTPTransport { StubTransport() }
    }

    @Test func knownNamesLoad() throws {
        let loader = ConfigLoader(registry: .builtIn, environmentVariables: [:])
        #expect(try loader.load(data: Self.document(nil)).transport == nil)
        #expect(try loader.load(data: Self.document(#""urlsession""#)).transport == "urlsession")
        #expect(try loader.load(data: Self.document(#""async-http-client""#)).transport == "async-http-client")
    }

    @Test func anUnknownNameListsTheKnownOnes() {
        let problems = ConfigLoader(registry: .builtIn, environmentVariables: [:]).validate(data: Self.document(#""URLSession""#))
        #expect(problems.map(\.description) == ["environments.dev.transport: unknown transport 'URLSession' (known: async-http-client, urlsession)"])
    }

    @Test func aWrongTypeIsAProblem() {
        let problems = ConfigLoader(registry: .builtIn, environmentVariables: [:]).validate(data: Self.document("true"))
        #expect(problems.map(\.description) == ["environments.dev.transport: expected string, found boolean"])
    }

    @Test func aRegisteredFactoryAddsItsNameAndBuildsTheTransport() throws {
        let registry = ProviderRegistry.builtIn.registering(transportFactory: EchoFactory())
        #expect(registry.transportNames == ["async-http-client", "echo", "urlsession"])
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Self.document(#""echo""#))
        let hub = try AuthHub(environment: environment, registry: registry)
        #expect(hub.context.transport is StubTransport)
        let problems = ConfigLoader(registry: .builtIn, environmentVariables: [:]).validate(data: Self.document(#""echo""#))
        #expect(problems.count == 1)
    }

    @Test func theSchemaListsTheTransports() {
        let schema = ProvidersSchema.generate(registry: .builtIn)
        let transport = schema["$defs"]?["environment"]?["properties"]?["transport"]
        #expect(transport?["enum"] == ["async-http-client", "urlsession"])
        #expect(transport?["default"] == "urlsession")
    }
}
