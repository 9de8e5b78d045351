import AuthHub
import AuthHubProviders
import Foundation
import Testing

@Suite struct ProvidersSchemaTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func containsEveryPluginTypeAndItsRequiredFields() throws {
        let schema = ProvidersSchema.generate(registry: .builtIn)
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        let defs = try #require(schema["$defs"]?.objectValue)
        #expect(defs["provider"]?["properties"]?["type"]?["enum"] == ["auth0", "firebase", "oidc", "openfort", "turnkey"])
        let expectedRequired: [String: [String]] = [
            "auth0": ["id", "type", "domain", "clientId"],
            "firebase": ["id", "type", "apiKey", "projectId"],
            "oidc": ["id", "type", "issuer", "clientId"],
            "openfort": ["id", "type", "publishableKey"],
            "turnkey": ["id", "type", "organizationId", "rpId", "proxyURL"],
        ]
        for plugin in ProviderRegistry.builtIn.all {
            let entry = try #require(defs["provider-\(plugin.type)"], "no definition for \(plugin.type)")
            #expect(entry["required"]?.arrayValue?.compactMap(\.stringValue) == expectedRequired[plugin.type])
            #expect(entry["additionalProperties"] == false)
            let properties = try #require(entry["properties"]?.objectValue)
            #expect(Set(properties.keys) == Set(["id", "type"] + plugin.fields.map(\.name)))
            for field in plugin.fields {
                #expect(properties[field.name]?["description"]?.stringValue?.hasPrefix(field.description) == true)
                #expect(properties[field.name]?["default"] == field.defaultValue)
            }
            // The discriminating if/then points at the entry's definition.
            let branches = try #require(defs["provider"]?["allOf"]?.arrayValue)
            #expect(branches.contains { $0["if"]?["properties"]?["type"]?["const"] == .string(plugin.type)
                && $0["then"]?["$ref"] == .string("#/$defs/provider-\(plugin.type)") })
        }
        #expect(defs["provider-openfort"]?["properties"]?["apiVersion"]?["anyOf"]?.arrayValue?.first == ["enum": ["v2", "v1"]])
        #expect(defs["provider-firebase"]?["properties"]?["apiKey"]?["description"]?.stringValue?.contains("Secret") == true)
    }

    @Test func includesThirdPartyPlugins() {
        let schema = ProvidersSchema.generate(registry: ProviderRegistry.builtIn.registering(AcmePlugin()))
        #expect(schema["$defs"]?["provider-acme"]?["required"] == ["id", "type", "tenant"])
        #expect(schema["$defs"]?["provider"]?["properties"]?["type"]?["enum"]?.arrayValue?.contains("acme") == true)
    }

    /// The committed providers.schema.json is what `authhub schema` prints: the built-in plugins and
    /// the CLI's store factories (postgres), so the full check is in AuthHubPostgresTests
    /// (`PostgresSchemaTests.committedSchemaIsUpToDate`); here, everything but the store factories' branches.
    @Test func committedSchemaIsUpToDate() throws {
        let url = Self.packageRoot.appendingPathComponent("providers.schema.json")
        let committed = try JSONValue.parse(Data(String(contentsOf: url, encoding: .utf8).utf8))
        let generated = ProvidersSchema.generate(registry: .builtIn)
        func storeBranches(_ schema: JSONValue) -> [JSONValue] { schema["$defs"]?["sessionStore"]?["oneOf"]?.arrayValue ?? [] }
        func withoutStores(_ schema: JSONValue) -> JSONValue {
            guard case .object(var root) = schema, case .object(var defs)? = root["$defs"] else { return schema }
            defs["sessionStore"] = nil
            root["$defs"] = .object(defs)
            return .object(root)
        }
        let stale = "providers.schema.json is stale: regenerate it with `swift run authhub schema > providers.schema.json`"
        #expect(withoutStores(committed) == withoutStores(generated), "\(stale)")
        #expect(Array(storeBranches(committed).prefix(2)) == storeBranches(generated), "\(stale)")
    }

    @Test func outputIsValidJSONAndDeterministic() throws {
        let text = ProvidersSchema.jsonString(registry: .builtIn)
        #expect(text == ProvidersSchema.jsonString(registry: .builtIn))
        #expect(try JSONValue.parse(Data(text.utf8)) == ProvidersSchema.generate(registry: .builtIn))
    }
}
