import ArgumentParser

// Placeholder until its helper lands the real command.
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "emulator")
    func run() async throws {}
}
