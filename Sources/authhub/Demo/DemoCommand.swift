import ArgumentParser
import AuthHub
import AuthHubEmulator
import AuthHubFactors
import CoreMetrics
import Foundation

/// `authhub demo`: starts an emulator in-process on an ephemeral loopback port, runs every
/// provider's flows against it over real HTTP, prints a ``DemoReport`` and stops the emulator.
///
/// Exit status 0 when every row passed, 1 otherwise. Today each module contributes one row,
/// `emulator routes`: the module is listed by `GET /__authhub/health` and its info route answers;
/// provider flows (sign-in, refresh, MFA, …) add rows of their own.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start an in-process emulator and run every provider's flows against it, printing a result table."
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print the results as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Also run two replicas sharing a session on this PostgreSQL database (postgres://user:password@host/db); "
                               + "a table of its own is created and dropped.", valueName: "url"))
    var postgres: String?

    @Flag(help: "Record AuthHub's metrics (swift-metrics) during the run and print them afterwards.")
    var metrics = false

    func run() async throws {
        let recorded = metrics ? DemoMetrics() : nil
        if let recorded { MetricsSystem.bootstrap(recorded) }
        let emulator: RunningEmulator
        do {
            emulator = try await Emulator.start()
        } catch {
            CLI.fail("cannot start the emulator: \(EmulatorCommand.reason(error))")
        }
        let transport = URLSessionTransport(defaultTimeout: .seconds(10))
        var report = DemoReport()
        await Self.checkEmulatorRoutes(emulator: emulator, transport: transport, into: &report)
        await Self.runProviders(emulator: emulator, transport: transport, into: &report)
        if let postgres {
            await DemoPostgresFlows.run(url: Secret(postgres), emulator: emulator, transport: transport, into: &report)
        }
        await emulator.stop()

        print(json ? report.renderJSON() : report.renderTable())
        if let recorded {
            // With --json the metrics go to standard error, so that standard output stays one JSON document.
            let text = "\nMetrics (swift-metrics, recorded during the run):\n" + recorded.render() + "\n"
            if json { FileHandle.standardError.write(Data(text.utf8)) } else { print(text, terminator: "") }
        }
        if !report.succeeded { throw ExitCode(1) }
    }

    /// Adds one `emulator routes` row per module: the health route lists the module and the
    /// module's info route answers 200 naming it.
    static func checkEmulatorRoutes(emulator: RunningEmulator, transport: any HTTPTransport, into report: inout DemoReport) async {
        var listed: [String] = []
        var infoPaths: [String: String] = [:]
        var setupFailure: String?
        do {
            let health = try await getJSON(emulator.url("/__authhub/health"), transport: transport)
            guard health["status"] == "ok" else { throw DemoFailure("health status is not ok") }
            listed = health["modules"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let modules = try await getJSON(emulator.url("/__authhub/modules"), transport: transport)
            for entry in modules["modules"]?.arrayValue ?? [] {
                if let name = entry["name"]?.stringValue, let info = entry["info"]?.stringValue { infoPaths[name] = info }
            }
        } catch {
            setupFailure = "health check failed: \(DemoReport.reason(for: error))"
        }

        for name in emulator.moduleNames {
            await report.record(provider: name, flow: "emulator routes") {
                if let setupFailure { throw DemoFailure(setupFailure) }
                guard listed.contains(name) else { throw DemoFailure("not listed by /__authhub/health") }
                guard let path = infoPaths[name] else { throw DemoFailure("no info route listed") }
                let info = try await getJSON(emulator.url(path), transport: transport)
                guard info["module"] == .string(name) else { throw DemoFailure("\(path) does not name the module") }
            }
        }
    }

    /// Loads the embedded providers.json against the emulator (validation, `${VAR}` substitution,
    /// every plugin builds its provider), then runs each provider's flows. No provider can hide: one
    /// of the configuration without a flow row of its own fails the demo.
    static func runProviders(emulator: RunningEmulator, transport: any HTTPTransport, into report: inout DemoReport) async {
        var hub: AuthHub?
        let passkeys: SoftwarePasskeyAuthenticator
        do {
            passkeys = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        } catch {
            report.add(DemoReport.Row(provider: "all", flow: "load providers.json", result: .failed, timeMs: 0,
                                      detail: DemoReport.reason(for: error)))
            return
        }
        var notarizer: String?
        await report.record(provider: "all", flow: "load providers.json") {
            notarizer = try await emulator.turnkeyNotarizerPublicKey(transport: transport)
            hub = try DemoConfiguration.hub(emulatorPort: emulator.port, transport: transport, turnkeyNotarizer: notarizer ?? "",
                                            passkeyAuthenticator: passkeys)
        }
        guard let hub, let notarizer else { return }
        await DemoAuth0Flows.run(hub: hub, emulator: emulator, transport: transport, into: &report)
        // The Vapor example gets a hub of its own (the application shuts it down with itself).
        await DemoWebFlows.run(hub: hub, emulator: emulator, into: &report) {
            try DemoConfiguration.hub(emulatorPort: emulator.port, transport: transport, turnkeyNotarizer: notarizer, passkeyAuthenticator: passkeys)
        }
        await DemoFirebaseFlows.run(hub: hub, emulator: emulator, transport: transport, into: &report)
        await DemoOpenfortFlows.run(hub: hub, emulator: emulator, transport: transport, into: &report)
        await DemoTurnkeyFlows.run(hub: hub, emulator: emulator, authenticator: passkeys, transport: transport, into: &report)
        for id in hub.providerIDs where !report.rows.contains(where: { $0.provider == id && $0.flow != "emulator routes" }) {
            report.add(DemoReport.Row(provider: id, flow: "provider flows", result: .failed, timeMs: 0,
                                      detail: "the demo ran no flow of provider '\(id)'"))
        }
    }

    /// GETs a URL and parses a 200 JSON reply.
    static func getJSON(_ url: URL, transport: any HTTPTransport) async throws -> JSONValue {
        let response = try await transport.send(.get, url)
        guard response.status == 200 else { throw DemoFailure("\(url.path) answered HTTP \(response.status)") }
        return try JSONValue.parse(response.body)
    }
}

/// A demo check that did not hold; its message is shown in the report.
struct DemoFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
