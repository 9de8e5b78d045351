import ArgumentParser
import AuthHub
import AuthHubProviders

/// `authhub schema`: prints the JSON Schema of providers.json generated from the plugins' fields;
/// `--markdown` prints the providers.json reference article instead.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of providers.json.",
        discussion: """
            Generated from the field declarations of every built-in plugin: authhub schema > providers.schema.json
            With --markdown, prints the providers.json reference (DocC article) instead: \(ProvidersReference.command)
            """
    )

    @Flag(help: "Print the providers.json reference as Markdown (the DocC article) instead of the JSON Schema.")
    var markdown = false

    func run() async throws {
        if markdown {
            CLI.out(ProvidersReference.markdown(registry: .builtIn), terminator: "")
        } else {
            CLI.out(ProvidersSchema.jsonString(registry: .builtIn), terminator: "")
        }
    }
}
