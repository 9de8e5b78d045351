import ArgumentParser
import AuthHub
import AuthHubProviders

/// `authhub schema`: prints the JSON Schema of providers.json generated from the plugins' and store
/// factories' fields; `--markdown` prints the providers.json reference article instead, and
/// `--markdown --store <type>` the reference of one store factory's fields.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of providers.json.",
        discussion: """
            Generated from the field declarations of every built-in plugin and of the store factories the CLI registers \
            (postgres): authhub schema > providers.schema.json
            With --markdown, prints the core providers.json reference (DocC article) instead, in which a store factory's \
            fields do not appear: \(ProvidersReference.command)
            With --markdown --store postgres, prints that store factory's fields as the article of its module: \
            authhub schema --markdown --store postgres > Sources/AuthHubPostgres/AuthHubPostgres.docc/PostgresStoreConfiguration.md
            """
    )

    @Flag(help: "Print the providers.json reference as Markdown (the DocC article) instead of the JSON Schema.")
    var markdown = false

    @Option(help: ArgumentHelp("With --markdown: print the reference of this session store type's fields (a registered store factory's).",
                               valueName: "type"))
    var store: String?

    func validate() throws {
        if store != nil, !markdown { throw ValidationError("--store needs --markdown") }
    }

    func run() async throws {
        if let store {
            guard let factory = HubLoader.registry.storeFactory(for: store) else {
                let known = HubLoader.registry.allStoreFactories.map(\.storeType)
                CLI.fail("No store factory for session store type '\(CLI.shown(store))' (factories: \(known.joined(separator: ", "))).")
            }
            CLI.out(ProvidersReference.markdown(storeFactory: factory), terminator: "")
        } else if markdown {
            // The core article: built-in plugins and core's stores; store factories document their fields in their module.
            CLI.out(ProvidersReference.markdown(registry: .builtIn), terminator: "")
        } else {
            CLI.out(ProvidersSchema.jsonString(registry: HubLoader.registry), terminator: "")
        }
    }
}
