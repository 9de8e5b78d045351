import ArgumentParser
import AuthHub
import AuthHubProviders
import Foundation

/// `authhub validate`: checks providers.json and reports every problem with its JSON path.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check providers.json and report every problem with its JSON path.",
        discussion: """
            Exits 0 with a one-line summary when the file is valid, or 1 with one `path: message` line \
            per problem on standard error. Values are never printed, only paths and names.
            """
    )

    @OptionGroup var options: GlobalOptions

    @Flag(name: .long, help: "Resolve ${VAR} references in every environment, not only the selected one.")
    var allEnvironments = false

    @Flag(name: .long, help: "Print the result as JSON on standard output.")
    var json = false

    /// The `--json` document.
    struct Report: Encodable {
        struct Problem: Encodable {
            var path: String
            var message: String
        }
        struct Environment: Encodable {
            var name: String
            var providers: Int
        }
        var ok: Bool
        var file: String
        var problems: [Problem]
        var environments: [Environment]?
    }

    func run() async throws {
        let file = options.config
        let loader = ConfigLoader(registry: HubLoader.registry)
        let data: Data
        do {
            data = try ConfigLoader.contents(ofFile: file)
        } catch let error as ConfigurationError {
            try fail(file: file, problems: error.problems)
        }

        let problems = loader.validate(data: data, environment: options.env, allEnvironments: allEnvironments)
        guard problems.isEmpty else { try fail(file: file, problems: problems) }

        let environments: [EnvironmentConfiguration]
        do {
            environments = allEnvironments
                ? try loader.loadAll(data: data, file: file)
                : [try loader.load(data: data, environment: options.env, file: file)]
        } catch let error as ConfigurationError {
            try fail(file: file, problems: error.problems)
        }

        if json {
            CLI.out(CLI.json(Report(ok: true, file: file, problems: [],
                                  environments: environments.map { .init(name: $0.name, providers: $0.providers.count) })))
        } else if allEnvironments {
            let details = environments.map { "\($0.name): \(Self.count($0.providers.count, "provider"))" }
            CLI.out("\(file): \(Self.count(environments.count, "environment")) OK (\(details.joined(separator: ", ")))")
        } else if let environment = environments.first {
            CLI.out("\(file): environment '\(environment.name)' OK (\(Self.count(environment.providers.count, "provider")))")
        }
    }

    /// Reports problems (JSON on stdout, or lines on stderr) and exits 1.
    private func fail(file: String, problems: [ConfigProblem]) throws -> Never {
        if json {
            CLI.out(CLI.json(Report(ok: false, file: file, problems: problems.map { .init(path: $0.path, message: $0.message) })))
            throw ExitCode.failure
        }
        if problems.count == 1, problems[0].path.isEmpty {
            CLI.fail("\(file): \(problems[0].message)")
        }
        CLI.stderr(problems.map(\.description).joined(separator: "\n"))
        CLI.stderr("error: \(file): \(Self.count(problems.count, "problem")) found")
        throw ExitCode.failure
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
