import Foundation
import PackagePlugin

/// `swift package validate-providers [--config FILE] [--env NAME] [--json]`
///
/// Runs `authhub validate --all-environments` on the package's providers.json (or `--config`), so CI
/// can check every environment — with the production variables set — before shipping. Passing
/// `--env` validates that one environment instead. Other arguments are forwarded to `authhub validate`.
@main
struct ValidateProviders: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "authhub")
        var forwarded = arguments
        if !forwarded.contains(where: { $0 == "--config" || $0.hasPrefix("--config=") }) {
            forwarded += ["--config", context.package.directoryURL.appendingPathComponent("providers.json").path]
        }
        let selectsOne = forwarded.contains { $0 == "--env" || $0.hasPrefix("--env=") }
        if !selectsOne, !forwarded.contains("--all-environments") {
            forwarded.append("--all-environments")
        }

        let process = Process()
        process.executableURL = tool.url
        process.arguments = ["validate"] + forwarded
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()

        if process.terminationReason != .exit || process.terminationStatus != 0 {
            // An error diagnostic makes `swift package` exit non-zero; authhub already printed the problems.
            Diagnostics.error("providers.json is not valid (authhub validate exited with status \(process.terminationStatus))")
        }
    }
}
