import ArgumentParser
import AuthHub
import AuthHubEmulator
import AuthHubProviders
import Foundation
import Logging
import UnixSignals

/// `authhub emulator`: serves the local emulator in the foreground until SIGINT or SIGTERM.
///
/// Prints exactly one line to standard output once the server accepts connections —
/// `AuthHub emulator listening on http://127.0.0.1:8750` — so scripts can wait for it. Logs go to
/// standard error (`--log-level debug` shows one line per request, never bodies or query strings).
/// A port already in use, or a non-loopback host without `--allow-non-loopback`, ends with a
/// one-line error and exit status 1. Without `--port`, it listens where providers.json (`--config`,
/// `--env`) expects it: the port of the loopback URLs its providers point at (8750 when there is no
/// providers.json or it names none), so the committed providers.json works with `authhub emulator` in
/// one terminal and `authhub login` in another.
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Serve the local AuthHub emulator (Auth0, Firebase, Openfort and Turnkey wire formats).",
        discussion: """
            Routes: /auth0/… (Auth0 domain http://HOST:PORT/auth0), /identitytoolkit.googleapis.com/… and \
            /securetoken.googleapis.com/… (Firebase emulatorHost HOST:PORT), /openfort/…, /turnkey/… and \
            /turnkey-proxy/…; GET /__authhub/health, POST /__authhub/reset. Stop with Ctrl-C (SIGINT) or SIGTERM.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "Address to bind; must be a loopback address unless --allow-non-loopback is given.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free port (default: the port providers.json's emulator URLs use, else 8750).")
    var port: Int?

    /// The port used when neither `--port` nor providers.json names one.
    static let defaultPort = 8750

    @Flag(help: "Allow binding to an address outside the loopback range (the emulator has no real security).")
    var allowNonLoopback = false

    @Option(help: "Log level on standard error: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "warning"

    @Option(help: "Algorithm the Auth0 module signs ID tokens with: RS256 (2048-bit RSA) or ES256 (P-256).")
    var auth0IdTokenAlg: String = "RS256"

    /// The parsed `--auth0-id-token-alg`.
    var auth0SigningAlgorithm: Auth0EmulatorSigningAlgorithm? { Auth0EmulatorSigningAlgorithm(rawValue: auth0IdTokenAlg.uppercased()) }

    func validate() throws {
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be between 0 and 65535.") }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        guard auth0SigningAlgorithm != nil else { throw ValidationError("--auth0-id-token-alg must be RS256 or ES256.") }
    }

    func run() async throws {
        var logger = Logger(label: "authhub.emulator", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = Logger.Level(rawValue: logLevel.lowercased()) ?? .warning
        // Trap the signals before binding, so an early Ctrl-C still stops the server gracefully.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)

        let configuration = EmulatorConfiguration(
            host: host, port: resolvedPort(), allowNonLoopback: allowNonLoopback, logger: logger
        )
        let running: RunningEmulator
        do {
            let modules: [any EmulatorModule] = [
                Auth0EmulatorModule(idTokenSigningAlgorithm: auth0SigningAlgorithm ?? .rs256), FirebaseEmulatorModule(),
                OpenfortEmulatorModule(), TurnkeyEmulatorModule(),
            ]
            running = try await Emulator(configuration: configuration, modules: modules).start()
        } catch {
            CLI.fail(Self.reason(error))
        }
        FileHandle.standardOutput.write(Data("AuthHub emulator listening on \(running.baseURL.absoluteString)\n".utf8))

        let outcome = await withTaskGroup(of: Outcome.self) { group -> Outcome in
            group.addTask {
                for await signal in signals { return .signal(signal.description) }
                return .stopped
            }
            group.addTask {
                do {
                    try await running.waitUntilStopped()
                    return .stopped
                } catch {
                    return .failed(Self.reason(error))
                }
            }
            let first = await group.next() ?? .stopped
            // Stop the server before leaving the group: the waiting child only returns once it has.
            await running.stop()
            group.cancelAll()
            return first
        }
        switch outcome {
        case .signal(let name):
            logger.info("emulator stopped by \(name)")
        case .stopped:
            break
        case .failed(let reason):
            CLI.fail("the emulator stopped: \(reason)")
        }
    }

    /// `--port`, else the port providers.json expects, else ``defaultPort``. A providers.json that
    /// does not exist at the default path is no error; one that was named with `--config` and does not
    /// load, or that names several ports, is.
    func resolvedPort() -> Int {
        if let port { return port }
        let explicit = global.config != GlobalOptions.defaultConfig || global.env != nil
        guard explicit || FileManager.default.fileExists(atPath: global.config) else { return Self.defaultPort }
        do {
            let environment = try ConfigLoader(registry: HubLoader.registry).load(contentsOf: global.config, environment: global.env)
            return try EmulatorTarget.port(of: environment) ?? Self.defaultPort
        } catch let failure as CLIFailure {
            CLI.fail(failure.message)
        } catch let error as ConfigurationError {
            HubLoader.fail(error, global)
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }

    private enum Outcome: Sendable {
        case signal(String)
        case stopped
        case failed(String)
    }

    /// A one-line, secret-free reason for a failure.
    static func reason(_ error: any Error) -> String {
        if let error = error as? AuthError { return error.message }
        return String(describing: error)
    }
}
