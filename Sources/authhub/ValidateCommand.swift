import ArgumentParser

// Placeholder until its helper lands the real command.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate")
    func run() async throws {}
}
