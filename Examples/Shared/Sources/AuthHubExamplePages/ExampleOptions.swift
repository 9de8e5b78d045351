import AuthHub
import Foundation

/// The command line of both example web apps:
/// `[--config providers.json] [--env NAME] [--port N] [--api-audience URL] [--public-base-url URL]`,
/// and `AUTHHUB_CSRF_KEY` (the key replicas behind one address share).
public struct ExampleOptions: Sendable {
    public var configPath: String
    public var environment: String?
    public var port: Int
    public var apiAudience: String?
    /// Where browsers reach the app: `--public-base-url`, else `http://127.0.0.1:PORT`.
    public var publicBaseURL: URL
    public var csrfKey: Secret<String>?

    /// Reads the arguments (without the program's name); on a bad one, prints `usage` or the problem
    /// to standard error, prefixed with `program`, and exits with status 2.
    public static func parse(_ arguments: [String], program: String, defaultPort: Int) -> ExampleOptions {
        func fail(_ message: String) -> Never {
            FileHandle.standardError.write(Data("\(program): \(message)\n".utf8))
            exit(2)
        }
        var remaining = arguments[...]
        var values: [String: String] = [:]
        let known: Set<String> = ["config", "env", "port", "api-audience", "public-base-url"]
        while let flag = remaining.popFirst() {
            let name = String(flag.dropFirst(2))
            guard flag.hasPrefix("--"), known.contains(name), let value = remaining.popFirst() else {
                fail("usage: \(program) [--config FILE] [--env NAME] [--port N] [--api-audience URL] [--public-base-url URL]")
            }
            values[name] = value
        }
        guard let port = Int(values["port"] ?? String(defaultPort)), (1...65_535).contains(port) else { fail("--port must be 1…65535") }
        guard let base = URL(string: values["public-base-url"] ?? "http://127.0.0.1:\(port)"), base.host != nil else {
            fail("--public-base-url is not a URL")
        }
        return ExampleOptions(configPath: values["config"] ?? "providers.json", environment: values["env"], port: port,
                              apiAudience: values["api-audience"], publicBaseURL: base,
                              csrfKey: ProcessInfo.processInfo.environment["AUTHHUB_CSRF_KEY"].map(Secret.init))
    }
}
