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
                      RefreshCommand.self, LogoutCommand.self, AccountCommand.self, MFACommand.self, EmulatorCommand.self, DemoCommand.self]
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
            // No command exits 0 while a renewed session exists only in its memory.
            await HubLoader.storeUnsavedSessions()
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

/// Every line the CLI writes goes through here: text from outside (a provider's message, a claim, a
/// code, a name) is shown with every character a terminal would act on escaped (``TerminalText``),
/// never acted on. Values are escaped one by one where they are put into the CLI's own lines
/// (``TerminalText/escape(_:)``, line breaks included); these writers escape once more, keeping the
/// CLI's own line breaks, so nothing written can reach the terminal raw.
enum CLI {
    /// Prints `error: <one line>` to standard error and exits with `code`: the whole message on one
    /// line, escaped (a line break in it is shown as `\u{A}`).
    static func fail(_ message: String, code: Int32 = 1) -> Never {
        let trimmed = message.hasSuffix("\n") ? String(message.dropLast()) : message
        FileHandle.standardError.write(Data("error: \(TerminalText.escape(trimmed))\n".utf8))
        exit(code)
    }

    /// Writes text and a line break to standard output (escaped, keeping line breaks).
    static func out(_ text: String, terminator: String = "\n") {
        FileHandle.standardOutput.write(Data((TerminalText.escapeKeepingNewlines(text) + terminator).utf8))
    }

    /// Writes one line to standard output at once, unbuffered (a URL another program waits for).
    static func stdoutLine(_ text: String) {
        out(text)
    }

    /// Writes text to standard error (escaped, keeping line breaks).
    static func stderr(_ text: String) {
        let safe = TerminalText.escapeKeepingNewlines(text)
        FileHandle.standardError.write(Data((safe.hasSuffix("\n") ? safe : safe + "\n").utf8))
    }

    /// A value from outside, escaped for one of the CLI's lines (``TerminalText/escape(_:)``).
    static func shown(_ text: String) -> String { TerminalText.escape(text) }

    /// Rows (the first a header; cells already escaped) as columns separated by two spaces, each
    /// padded to its widest cell but the last.
    static func table(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// Encodes a value as pretty, sorted JSON for `--json` output.
    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { jsonEscaped(String(decoding: $0, as: UTF8.self)) } ?? "{}"
    }

    /// JSON text with every character a terminal acts on written as a JSON escape (`\u009b`): the same
    /// data, but safe on a terminal (JSONEncoder escapes only U+0000–U+001F). Such characters can only
    /// stand inside strings, where `\uXXXX` means them.
    static func jsonEscaped(_ json: String) -> String {
        guard !TerminalText.isSafe(json) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if TerminalText.isUnsafe(scalar), scalar != "\n" {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
