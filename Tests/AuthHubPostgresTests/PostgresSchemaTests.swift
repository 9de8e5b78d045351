import AuthHub
import AuthHubPostgres
import AuthHubProviders
import Foundation
import Testing

/// The `postgres` fields reach the JSON Schema and the docs from ``PostgresSessionStoreFactory``'s
/// declarations, as a provider plugin's do; core's own reference names only `memory` and `file`.
@Suite struct PostgresSchemaTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let registry = ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory())
    static let articlePath = "Sources/AuthHubPostgres/AuthHubPostgres.docc/PostgresStoreConfiguration.md"

    /// providers.schema.json is `authhub schema`'s output: the built-in plugins plus the CLI's store factory.
    @Test func committedSchemaIsUpToDate() throws {
        let committed = try String(contentsOf: Self.packageRoot.appendingPathComponent("providers.schema.json"), encoding: .utf8)
        #expect(committed == ProvidersSchema.jsonString(registry: Self.registry),
                "providers.schema.json is stale: regenerate it with `swift run authhub schema > providers.schema.json`")
    }

    @Test func theSchemaDescribesThePostgresFields() throws {
        let schema = ProvidersSchema.generate(registry: Self.registry)
        let branches = try #require(schema["$defs"]?["sessionStore"]?["oneOf"]?.arrayValue)
        #expect(branches.compactMap { $0["properties"]?["type"]?["const"]?.stringValue } == ["memory", "file", "postgres"])
        let postgres = try #require(branches.last)
        #expect(postgres["required"] == ["type", "url", "encryptionKey"])
        #expect(postgres["additionalProperties"] == false)
        let properties = try #require(postgres["properties"]?.objectValue)
        #expect(Set(properties.keys) == ["type", "url", "table", "encryptionKey"])
        #expect(properties["table"]?["default"] == "authhub_sessions")
        #expect(properties["url"]?["description"]?.stringValue?.contains("Secret") == true)
        // Without the factory, the schema knows no postgres store.
        let core = ProvidersSchema.generate(registry: .builtIn)
        #expect(core["$defs"]?["sessionStore"]?["oneOf"]?.arrayValue?.count == 2)
    }

    @Test func committedArticleIsUpToDate() throws {
        let committed = try String(contentsOf: Self.packageRoot.appendingPathComponent(Self.articlePath), encoding: .utf8)
        let generated = ProvidersReference.markdown(storeFactory: PostgresSessionStoreFactory())
        #expect(committed == generated,
                "\(Self.articlePath) is stale: regenerate it with `swift run authhub schema --markdown --store postgres > \(Self.articlePath)`")
        for field in PostgresSessionStoreFactory().fields {
            #expect(generated.contains("| `postgres` | `\(field.name)` |"), "\(field.name)")
        }
        #expect(generated.contains("| `postgres` | `url` | yes | yes |"))
        #expect(generated.contains("| `postgres` | `table` | no | no | `authhub_sessions` |"))
        #expect(generated.contains("| `postgres` | `encryptionKey` | yes | yes |"))
    }

    @Test func theReferenceOfARegistryWithTheFactoryListsItsFieldsAndCoresDoesNot() throws {
        let withFactory = ProvidersReference.markdown(registry: Self.registry)
        #expect(withFactory.contains("| `postgres` | `url` | yes | yes |"))
        let core = try String(contentsOf: Self.packageRoot.appendingPathComponent("Sources/AuthHub/AuthHub.docc/ProvidersJSONReference.md"),
                              encoding: .utf8)
        #expect(!core.lowercased().contains("postgres"))
        #expect(core.contains("| `file` | `path` | yes | no |"))
        #expect(core.contains("| `memory` | `type` | yes | no |"))
    }
}
