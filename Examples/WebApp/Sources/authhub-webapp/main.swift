import AuthHub
import AuthHubProviders
import AuthHubWebExample
import Foundation
import Hummingbird

// The example web app (see Examples/WebApp/README.md):
//   swift run authhub-webapp [--config providers.json] [--env NAME] [--port 8080] [--api-audience URL]
// It signs users in with every web-capable provider of providers.json and serves
// http://127.0.0.1:PORT (loopback development mode: plain-HTTP cookies).
var arguments = CommandLine.arguments.dropFirst()
var options: [String: String] = [:]
while let flag = arguments.popFirst() {
    guard flag.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("usage: authhub-webapp [--config FILE] [--env NAME] [--port N] [--api-audience URL]\n".utf8))
        exit(2)
    }
    options[String(flag.dropFirst(2))] = value
}
guard let port = Int(options["port"] ?? "8080"), (1...65_535).contains(port) else {
    FileHandle.standardError.write(Data("authhub-webapp: --port must be 1…65535\n".utf8))
    exit(2)
}
do {
    let hub = try AuthHub.load(configPath: options["config"] ?? "providers.json", environment: options["env"], registry: .builtIn)
    guard let base = URL(string: "http://127.0.0.1:\(port)") else { exit(2) }
    let router = try await WebExampleApp.router(hub: hub, publicBaseURL: base, apiAudience: options["api-audience"])
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
    try await app.runService()
} catch let error as AuthError {
    FileHandle.standardError.write(Data("authhub-webapp: \(error.message)\n".utf8))
    exit(1)
}
