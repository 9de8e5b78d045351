import ArgumentParser
import AuthHub
import Foundation
import Logging

/// `authhub`: the command-line face of AuthHub. Business logic lives in the libraries; commands
/// parse arguments, call them and print.
@main
struct AuthHubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authhub",
        abstract: "One authentication API over many identity providers.",
        discussion: "Library log lines go to standard error at level warning; set AUTHHUB_LOG_LEVEL (trace … critical) for more.",
        subcommands: [ValidateCommand.self, ProvidersCommand.self, SchemaCommand.self, LoginCommand.self, SignUpCommand.self,
                      ResetPasswordCommand.self, VerifyEmailCommand.self, DeleteAccountCommand.self, SessionCommand.self, TokenCommand.self,
                      RefreshCommand.self, LogoutCommand.self, MFACommand.self, EmulatorCommand.self, DemoCommand.self]
    )
}

extension AuthHubCommand {
    /// Quiets the libraries' informational log lines (a failing command prints one line), then runs
    /// the command as ArgumentParser would.
    static func main() async {
        let requested = ProcessInfo.processInfo.environment["AUTHHUB_LOG_LEVEL"]
        let level = requested.flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .warning
        if let requested, Logger.Level(rawValue: requested.lowercased()) == nil {
            let known = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            CLI.stderr("warning: AUTHHUB_LOG_LEVEL=\(requested) is not a log level (\(known)); using warning")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    /// The `--config` used when none is given.
    static let defaultConfig = "providers.json"

    @Option(name: .long, help: "Path of providers.json.")
    var config: String = GlobalOptions.defaultConfig

    @Option(name: .long, help: "Environment to use (default: $AUTHHUB_ENV, then the file's defaultEnvironment).")
    var env: String?
}

/// A failure reported as one line on standard error with a non-zero exit status.
struct CLIFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32 = 1
    var description: String { message }
}

enum CLI {
    /// Prints `error: <one line>` to standard error and exits with `code`.
    static func fail(_ message: String, code: Int32 = 1) -> Never {
        let line = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? message
        FileHandle.standardError.write(Data("error: \(line)\n".utf8))
        exit(code)
    }

    /// Writes one line to standard output at once, unbuffered (a URL another program waits for).
    static func stdoutLine(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes text to standard error.
    static func stderr(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Encodes a value as pretty, sorted JSON for `--json` output.
    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
