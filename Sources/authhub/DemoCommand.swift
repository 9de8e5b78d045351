import ArgumentParser

// Placeholder until its helper lands the real command.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo")
    func run() async throws {}
}
