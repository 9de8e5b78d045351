import ArgumentParser
import AuthHub
import AuthHubProviders

/// `authhub schema`: prints the JSON Schema of providers.json generated from the plugins' fields.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of providers.json.",
        discussion: "Generated from the field declarations of every built-in plugin: authhub schema > providers.schema.json"
    )

    func run() async throws {
        print(ProvidersSchema.jsonString(registry: .builtIn), terminator: "")
    }
}
