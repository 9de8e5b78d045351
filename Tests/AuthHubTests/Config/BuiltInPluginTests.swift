import AuthHub
import AuthHubAuth0
import AuthHubFirebase
import AuthHubOIDC
import AuthHubOpenfort
import AuthHubProviders
import AuthHubTurnkey
import Foundation
import Testing

@Suite struct BuiltInPluginTests {
    private let loader = ConfigLoader(registry: .builtIn, environmentVariables: [:])

    /// The problems of a single-entry environment, paths relative to the entry.
    private func problems(_ entry: String) -> [String] {
        let prefix = "environments.e.providers[0]."
        return loader.validate(data: Data(#"{"environments": {"e": {"providers": [\#(entry)]}}}"#.utf8)).map {
            $0.description.hasPrefix(prefix) ? String($0.description.dropFirst(prefix.count)) : $0.description
        }
    }

    private func build(_ entry: String) throws -> any AuthProvider {
        let environment = try loader.load(data: Data(#"{"environments": {"e": {"providers": [\#(entry)]}}}"#.utf8))
        let hub = try AuthHub(environment: environment, registry: .builtIn, store: InMemorySessionStore())
        return try hub.provider()
    }

    @Test func registryListsTheFiveBuiltIns() {
        #expect(ProviderRegistry.builtIn.types == ["auth0", "firebase", "oidc", "openfort", "turnkey"])
        for plugin in ProviderRegistry.builtIn.all {
            #expect(!plugin.summary.isEmpty)
            #expect(plugin.fields.allSatisfy { !$0.description.isEmpty }, "\(plugin.type) documents every field")
        }
    }

    @Test func auth0Rules() throws {
        let base = #""id": "a", "type": "auth0", "clientId": "c""#
        #expect(problems(#"{\#(base), "domain": "http://tenant.auth0.com"}"#)
            == ["domain: must use https (plain http is allowed only for a loopback host such as the local emulator)"])
        #expect(problems(#"{\#(base), "domain": "t.auth0.com", "leeway": -1, "redirectURI": "callback"}"#)
            == ["leeway: must not be negative", "redirectURI: must be an absolute URI with a scheme (e.g. com.example.app://callback)"])
        #expect(problems(#"{\#(base), "domain": "t.auth0.com", "redirectURI": "com.example.app://callback"}"#).isEmpty)

        let provider = try #require(try build(#"{\#(base), "domain": "t.eu.auth0.com", "organization": "org_1"}"#) as? Auth0Provider)
        #expect(provider.configuration.baseURL.absoluteString == "https://t.eu.auth0.com/")
        #expect(provider.configuration.scope == "openid profile email offline_access")
        #expect(provider.configuration.leeway == 60)
        #expect(provider.configuration.organization == "org_1")
        #expect(provider.type == "auth0")
    }

    @Test func oidcRules() throws {
        let base = #""id": "o", "type": "oidc", "clientId": "c""#
        #expect(problems(#"{\#(base), "issuer": "http://login.example.com"}"#)
            == ["issuer: must use https (plain http is allowed only for a loopback host such as the local emulator)"])
        #expect(problems(#"{\#(base), "issuer": "http://localhost:8080/realms/x"}"#).isEmpty)
        #expect(problems(#"{\#(base)}"#) == ["issuer: required"])

        let provider = try #require(try build(#"{\#(base), "issuer": "https://login.example.com", "clientSecret": "s3", "additionalParameters": {"prompt": "login"}}"#) as? OIDCProvider)
        #expect(provider.configuration.scopes == ["openid", "profile", "email"])
        #expect(provider.configuration.clientSecret?.revealed() == "s3")
        #expect("\(provider.configuration)".contains("s3") == false, "the client secret is a Secret")
        #expect(provider.configuration.additionalParameters == ["prompt": "login"])
    }

    @Test func firebaseRules() throws {
        let base = #""id": "f", "type": "firebase", "apiKey": "k""#
        #expect(problems(#"{\#(base), "projectId": "p", "emulatorHost": "localhost"}"#)
            == ["emulatorHost: must be host:port without a scheme (e.g. 127.0.0.1:9099)"])
        #expect(problems(#"{\#(base), "projectId": "p", "emulatorHost": "[::1]:9099"}"#).isEmpty)
        #expect(problems(#"{\#(base), "projectId": "My_Project"}"#) == ["projectId: must contain only lowercase letters, digits and '-'"])
        #expect(problems(#"{"id": "f", "type": "firebase", "projectId": "p"}"#) == ["apiKey: required"])

        let provider = try #require(try build(#"{\#(base), "projectId": "demo", "emulatorHost": "127.0.0.1:9099"}"#) as? FirebaseProvider)
        #expect(provider.configuration.usesEmulator)
        #expect(provider.configuration.emulatorHost == "127.0.0.1:9099")
        #expect(provider.configuration.apiKey.revealed() == "k")
    }

    @Test func openfortRules() throws {
        let base = #""id": "of", "type": "openfort""#
        #expect(problems(#"{\#(base), "publishableKey": "abc"}"#) == ["publishableKey: must start with pk_ (pk_test_… or pk_live_…)"])
        #expect(problems(#"{\#(base), "publishableKey": "sk_test_1"}"#)
            == ["publishableKey: is a secret key (sk_…); secret keys are for servers only — use the publishable key (pk_…)"])
        #expect(problems(#"{\#(base), "publishableKey": "pk_test_1", "baseURL": "http://api.example.com"}"#)
            == ["baseURL: must use https (plain http is allowed only for a loopback host such as the local emulator)"])
        #expect(problems(#"{\#(base), "publishableKey": "pk_test_1", "apiVersion": 2}"#) == ["apiVersion: expected string, found number"])

        let provider = try #require(try build(#"{\#(base), "publishableKey": "pk_test_1", "apiVersion": "v1"}"#) as? OpenfortProvider)
        #expect(provider.configuration.baseURL.absoluteString == "https://api.openfort.io")
        #expect(provider.configuration.apiVersion == .v1)
    }

    @Test func turnkeyRules() throws {
        let base = #""id": "tk", "type": "turnkey", "proxyURL": "https://app.example.com""#
        let org = "00000000-0000-4000-8000-000000000001"
        #expect(problems(#"{\#(base), "organizationId": "org", "rpId": "example.com:443", "sessionLifetimeSeconds": 0}"#) == [
            "organizationId: must be a UUID (8-4-4-4-12 hexadecimal digits)",
            "rpId: must be a domain without scheme, port or path (e.g. example.com)",
            "sessionLifetimeSeconds: must be positive",
        ])
        #expect(problems(#"{"id": "tk", "type": "turnkey"}"#) == ["organizationId: required", "rpId: required", "proxyURL: required"])

        let provider = try #require(try build(#"{\#(base), "organizationId": "\#(org)", "rpId": "example.com"}"#) as? TurnkeyProvider)
        #expect(provider.configuration.baseURL.absoluteString == "https://api.turnkey.com")
        #expect(provider.configuration.sessionLifetimeSeconds == 900)
        #expect(provider.configuration.organizationId == org)
    }

    @Test func turnkeyAdvertisesPasskeyRefreshUserInfoAndRefusesTheRest() async throws {
        let entry = #"{"id": "tk", "type": "turnkey", "organizationId": "00000000-0000-4000-8000-000000000001", "rpId": "example.com", "proxyURL": "https://p.example.com"}"#
        let provider = try build(entry)
        #expect(provider.capabilities == [.passkey, .passkeySignUp, .refresh, .userInfo])
        await #expect(throws: AuthError(.unsupported)) {
            try await provider.signIn(.password(identifier: "a@b.c", password: Secret("pw")))
        }
        await #expect(throws: AuthError(.unsupported)) { try await provider.sendPasswordReset(email: "a@b.c") }
        // No passkey authenticator in the default context: a passkey sign-in is a configuration error.
        await #expect(throws: AuthError(.invalidConfiguration)) { try await provider.signIn(.passkey(identifier: nil)) }
    }

    @Test func turnkeyPollingAndNotarizerFields() throws {
        let base = #""id": "tk", "type": "turnkey", "organizationId": "00000000-0000-4000-8000-000000000001", "rpId": "example.com", "proxyURL": "https://p.example.com""#
        #expect(problems(#"{\#(base), "activityPollIntervalMilliseconds": 0, "activityPollAttempts": 1000, "notarizerPublicKey": "xyz"}"#) == [
            "activityPollIntervalMilliseconds: must be between 1 and 60000",
            "activityPollAttempts: must be between 0 and 100",
            "notarizerPublicKey: must be a P-256 public key in hex: 130 characters uncompressed (04…) or 66 compressed (02…/03…)",
        ])
        let provider = try #require(try build(#"{\#(base), "activityPollIntervalMilliseconds": 20, "activityPollAttempts": 9}"#) as? TurnkeyProvider)
        #expect(provider.configuration.activityPollIntervalMilliseconds == 20)
        #expect(provider.configuration.activityPollAttempts == 9)
    }

    /// The committed providers.json: development validates as is; production needs its variables.
    @Test func repositoryProvidersJSONValidates() throws {
        let url = ProvidersSchemaTests.packageRoot.appendingPathComponent("providers.json")
        let data = try Data(contentsOf: url)
        #expect(loader.validate(data: data).map(\.description) == [])
        let development = try loader.load(data: data)
        #expect(development.name == "development")
        #expect(Set(development.providers.map(\.type)) == Set(ProviderRegistry.builtIn.types))

        let productionVariables = ["AUTHHUB_STORE_KEY", "AUTH0_CLIENT_ID", "FIREBASE_API_KEY", "OPENFORT_PUBLISHABLE_KEY",
                                   "TURNKEY_ORGANIZATION_ID", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"]
        let unset = loader.validate(data: data, allEnvironments: true).map(\.message)
        #expect(unset == productionVariables.map { "environment variable \($0) is not set" })

        let variables = [
            "AUTHHUB_STORE_KEY": Data(repeating: 1, count: 32).base64EncodedString(),
            "AUTH0_CLIENT_ID": "cid", "FIREBASE_API_KEY": "key", "OPENFORT_PUBLISHABLE_KEY": "pk_live_1",
            "TURNKEY_ORGANIZATION_ID": "00000000-0000-4000-8000-000000000002", "OIDC_CLIENT_ID": "oc", "OIDC_CLIENT_SECRET": "os",
        ]
        let withVariables = ConfigLoader(registry: .builtIn, environmentVariables: variables)
        #expect(withVariables.validate(data: data, allEnvironments: true).map(\.description) == [])
        let production = try withVariables.load(data: data, environment: "production")
        guard case .file(let path, let key) = production.sessionStore else {
            Issue.record("production uses a file store")
            return
        }
        #expect(path == "/var/lib/authhub/sessions")
        #expect(key != nil)
    }
}
