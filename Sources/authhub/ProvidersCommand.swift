import ArgumentParser
import AuthHub
import AuthHubProviders
import Foundation

/// `authhub providers`: the providers of the selected environment, with their capabilities.
struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List the providers of an environment: id, type, default marker and capabilities."
    )

    @OptionGroup var options: GlobalOptions

    @Flag(name: .long, help: "Print the list as JSON on standard output.")
    var json = false

    /// The `--json` document.
    struct Listing: Encodable {
        struct Provider: Encodable {
            var id: String
            var type: String
            var `default`: Bool
            var capabilities: [String]
        }
        var environment: String
        var defaultProvider: String
        var providers: [Provider]
    }

    func run() async throws {
        let loader = ConfigLoader(registry: HubLoader.registry)
        let environment: EnvironmentConfiguration
        do {
            environment = try loader.load(contentsOf: options.config, environment: options.env)
        } catch let error as ConfigurationError {
            HubLoader.fail(error, options)
        }
        // An in-memory store: listing providers must not create session directories.
        let hub: AuthHub
        do {
            hub = try AuthHub(environment: environment, registry: HubLoader.registry, store: InMemorySessionStore())
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }

        var rows: [Listing.Provider] = []
        for id in hub.providerIDs {
            let provider = try hub.provider(id)
            rows.append(.init(id: id, type: provider.type, default: id == environment.defaultProvider,
                              capabilities: provider.capabilities.sorted().map(\.rawValue)))
        }
        if json {
            CLI.out(CLI.json(Listing(environment: environment.name, defaultProvider: environment.defaultProvider, providers: rows)))
            return
        }
        CLI.out("Environment '\(environment.name)' (\(options.config))")
        let table = [["ID", "TYPE", "DEFAULT", "CAPABILITIES"]] + rows.map {
            [$0.id, $0.type, $0.default ? "*" : "", $0.capabilities.isEmpty ? "-" : $0.capabilities.joined(separator: ", ")]
        }
        let widths = (0..<4).map { column in table.map { $0[column].count }.max() ?? 0 }
        for row in table {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            CLI.out(cells.joined(separator: "  "))
        }
    }
}
