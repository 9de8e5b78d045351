import AuthHub

/// A third-party plugin, as another package would write it.
struct AcmePlugin: ProviderPlugin {
    var type: String { "acme" }
    var summary: String { "Acme Identity (test plugin)" }
    var capabilities: Set<AuthCapability> { [.passwordSignIn] }
    var fields: [ConfigField] {
        [
            ConfigField("tenant", .string, required: true, description: "Acme tenant."),
            ConfigField("region", .oneOf(["eu", "us"]), description: "Data region.", defaultValue: "eu"),
        ]
    }

    func validate(_ configuration: ProviderConfiguration) -> [ConfigProblem] {
        configuration.string("tenant")?.hasPrefix("acme-") == false
            ? [ConfigProblem(path: "tenant", message: "must start with acme-")] : []
    }

    func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        AcmeProvider(id: configuration.id, tenant: try configuration.requiredString("tenant"),
                     region: configuration.string("region") ?? "eu")
    }
}
