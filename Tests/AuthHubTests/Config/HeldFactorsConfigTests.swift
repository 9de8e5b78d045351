import AuthHub
import AuthHubProviders
import Foundation
import Testing

/// providers.json's `heldFactors`: validated with paths, and installed on the hub by the built-in
/// registry's factory.
@Suite struct HeldFactorsConfigTests {
    static func config(_ heldFactors: String) -> String {
        """
        {"environments": {"dev": {"defaultProvider": "of", "sessionStore": {"type": "memory"}, "heldFactors": \(heldFactors),
          "providers": [{"id": "of", "type": "openfort", "publishableKey": "pk_test_1", "baseURL": "http://127.0.0.1:9"},
                        {"id": "fb", "type": "firebase", "apiKey": "k", "projectId": "p"}]}}}
        """
    }

    static func load(_ heldFactors: String) throws -> EnvironmentConfiguration {
        try ConfigLoader(registry: .builtIn, environmentVariables: [:]).load(data: Data(config(heldFactors).utf8), environment: "dev")
    }

    @Test func aValidBlockIsReadAndInstalled() throws {
        let environment = try Self.load("""
            {"providers": ["of"], "issuer": "Example", "relyingPartyID": "app.example.com", "origins": ["https://app.example.com"]}
            """)
        let settings = try #require(environment.heldFactors)
        #expect(settings.providers == ["of"] && settings.kinds == [.totp, .passkey, .recoveryCode] && settings.issuer == "Example")
        let hub = try AuthHub(environment: environment, registry: .builtIn)
        #expect(hub.heldFactors != nil)
        #expect(try hub.accountCapabilities(provider: "of").isSuperset(of: [.enrollTOTP, .enrollPasskey, .enrollRecoveryCodes]))
        #expect(!(try hub.accountCapabilities(provider: "fb")).contains(.enrollRecoveryCodes))
        // Without a relying party: no passkeys by default.
        #expect(try Self.load(#"{"providers": ["of"]}"#).heldFactors?.kinds == [.totp, .recoveryCode])
        // A registry without the factory refuses the environment rather than dropping the second step.
        #expect(throws: AuthError(.invalidConfiguration)) {
            _ = try AuthHub(environment: environment, registry: ProviderRegistry(ProviderRegistry.builtIn.all))
        }
    }

    @Test(arguments: [
        (#"[]"#, "environments.dev.heldFactors: expected object"),
        (#"{}"#, "environments.dev.heldFactors.providers: required"),
        (#"{"providers": []}"#, "environments.dev.heldFactors.providers: at least one provider id"),
        (#"{"providers": ["nope"]}"#, "environments.dev.heldFactors.providers[0]: unknown provider"),
        (#"{"providers": ["of"], "kinds": ["sms"]}"#, "environments.dev.heldFactors.kinds[0]: unknown kind"),
        (#"{"providers": ["of"], "kinds": ["passkey"]}"#, "environments.dev.heldFactors.relyingPartyID: required for passkeys"),
        (#"{"providers": ["of"], "relyingPartyID": "https://x"}"#, "environments.dev.heldFactors.relyingPartyID: expected a domain"),
        (#"{"providers": ["of"], "relyingPartyID": "x.test", "origins": ["https://x.test/path"]}"#, "environments.dev.heldFactors.origins[0]: expected a web origin"),
        (#"{"providers": ["of"], "extra": 1}"#, "environments.dev.heldFactors.extra"),
    ] as [(String, String)])
    func mistakesAreReportedWithTheirPath(block: String, expected: String) {
        do {
            _ = try Self.load(block)
            Issue.record("accepted \(block)")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }
}
