import Foundation

/// The command line of `AuthHubRefreshWorker`.
///
/// ```
/// AuthHubRefreshWorker --store <dir> --token-url <url> [--provider test] [--account default]
///                      [--callers 20] [--wait-for-go]
/// AuthHubRefreshWorker --config <providers.json> [--env name] [--provider id] [--account default]
///                      [--callers 20] [--wait-for-go] [--watch]
/// ```
/// With `--config` the worker is an app: it loads an `AuthHub` from providers.json (built-in
/// providers, the `postgres` store registered) and its callers call `hub.session()`; with `--watch`
/// it calls nothing and prints the hub's events instead (see main.swift).
/// The store's encryption key, if any, comes from the `AUTHHUB_STORE_KEY` environment variable (not
/// the command line, where other users could read it in the process list).
struct WorkerOptions {
    var storeDirectory: URL?
    var tokenURL: URL?
    var configPath: String?
    var environmentName: String?
    /// Print the hub's events (one JSON line each) until a `signedOut`, instead of calling.
    var watch = false
    var provider = "test"
    var account = "default"
    var callers = 20
    /// Print `ready`, then wait for a line on standard input before refreshing, so that a test can
    /// start several workers' refreshes at the same moment.
    var waitForGo = false
    var encryptionKey: String?

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws -> WorkerOptions {
        var values: [String: String] = [:]
        var waitForGo = false
        var watch = false
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--wait-for-go":
                waitForGo = true
            case "--watch":
                watch = true
            case "--store", "--token-url", "--provider", "--account", "--callers", "--config", "--env":
                guard let value = iterator.next() else { throw UsageError(description: "\(argument) needs a value") }
                values[argument] = value
            default:
                throw UsageError(description: "unknown argument \(argument)")
            }
        }
        var options: WorkerOptions
        if let config = values["--config"] {
            options = WorkerOptions(storeDirectory: nil, tokenURL: nil, configPath: config, environmentName: values["--env"])
            options.provider = values["--provider"] ?? "auth0"
            options.watch = watch
        } else {
            guard let store = values["--store"] else { throw UsageError(description: "--store or --config is required") }
            guard let tokenText = values["--token-url"], let tokenURL = URL(string: tokenText) else {
                throw UsageError(description: "--token-url is required and must be a URL")
            }
            guard !watch else { throw UsageError(description: "--watch needs --config") }
            options = WorkerOptions(storeDirectory: URL(fileURLWithPath: store, isDirectory: true), tokenURL: tokenURL)
        }
        options.provider = values["--provider"] ?? options.provider
        options.account = values["--account"] ?? options.account
        if let callers = values["--callers"] {
            guard let n = Int(callers), (1...10_000).contains(n) else {
                throw UsageError(description: "--callers must be a number from 1 to 10000")
            }
            options.callers = n
        }
        options.waitForGo = waitForGo
        options.encryptionKey = environment["AUTHHUB_STORE_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        return options
    }
}
