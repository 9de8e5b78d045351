import ArgumentParser

// Placeholder until its helper lands the real command.
struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "providers")
    func run() async throws {}
}
