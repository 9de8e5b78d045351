import AuthHub
import AuthHubAuth0
import AuthHubProviders
import Foundation
import Testing

@Suite struct AuthHubLoadTests {
    private func writeConfig(_ text: String) throws -> (directory: URL, file: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("providers.json")
        try Data(text.utf8).write(to: file)
        return (directory, file.path)
    }

    static let config = """
        {"environments": {"dev": {"defaultProvider": "acme", "providers": [
          {"id": "acme", "type": "acme", "tenant": "acme-${ACME_TENANT}"},
          {"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:8750/auth0", "clientId": "dev"}
        ]}}}
        """

    @Test func thirdPartyPluginValidatesAndBuildsThroughLoad() throws {
        let (directory, file) = try writeConfig(Self.config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = ProviderRegistry.builtIn.registering(AcmePlugin())
        let hub = try AuthHub.load(configPath: file, registry: registry, environmentVariables: ["ACME_TENANT": "blue"])
        #expect(hub.providerIDs == ["acme", "auth0"])
        let acme = try hub.provider("acme", as: AcmeProvider.self)
        #expect(acme.tenant == "acme-blue")
        #expect(acme.region == "eu", "the plugin's default applies")
        #expect(try hub.provider().id == "acme")
        let auth0 = try hub.provider("auth0", as: Auth0Provider.self)
        #expect(auth0.configuration.baseURL.absoluteString == "http://127.0.0.1:8750/auth0/")
        #expect(hub.store is InMemorySessionStore)

        // The plugin's own validate and its fields take part in validation.
        let loader = ConfigLoader(registry: registry, environmentVariables: [:])
        let bad = Self.config.replacingOccurrences(of: "acme-${ACME_TENANT}", with: "blue")
            .replacingOccurrences(of: #""tenant""#, with: #""region": "mars", "tenant""#)
        #expect(loader.validate(data: Data(bad.utf8)).map(\.description)
            == [#"environments.dev.providers[0].region: must be one of "eu", "us""#])
        let badTenant = Self.config.replacingOccurrences(of: "acme-${ACME_TENANT}", with: "blue")
        #expect(loader.validate(data: Data(badTenant.utf8)).map(\.description)
            == ["environments.dev.providers[0].tenant: must start with acme-"])
    }

    @Test func unregisteredTypeFailsWithAllProblemsAsInvalidConfiguration() throws {
        let (directory, file) = try writeConfig(Self.config)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            _ = try AuthHub.load(configPath: file, registry: .builtIn, environmentVariables: [:])
            Issue.record("load should fail")
        } catch let error as AuthError {
            #expect(error.code == .invalidConfiguration)
            let problems = try #require(error.underlying as? ConfigurationError).problems.map(\.description)
            #expect(problems == ["environments.dev.providers[0].type: unknown provider type 'acme' (known: auth0, firebase, oidc, openfort, turnkey)"])
        }
    }

    @Test func missingFileIsInvalidConfiguration() {
        #expect(throws: AuthError(.invalidConfiguration)) {
            try AuthHub.load(configPath: "/nonexistent/authhub/providers.json", registry: .builtIn, environmentVariables: [:])
        }
    }
}
