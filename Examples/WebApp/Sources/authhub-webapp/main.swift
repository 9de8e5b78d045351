import AuthHub
import AuthHubPostgres
import AuthHubProviders
import AuthHubWebExample
import Foundation
import Hummingbird

// The example web app (see Examples/WebApp/README.md):
//   swift run authhub-webapp [--config providers.json] [--env NAME] [--port 8080] [--api-audience URL] [--public-base-url URL]
// It signs users in with every web-capable provider of providers.json and serves
// http://127.0.0.1:PORT (loopback development mode: plain-HTTP cookies). `--public-base-url` names the
// address browsers use when that is not the app's own (replicas behind a load balancer on loopback);
// replicas then share the CSRF key in AUTHHUB_CSRF_KEY. providers.json may use the `postgres` store.
var arguments = CommandLine.arguments.dropFirst()
var options: [String: String] = [:]
while let flag = arguments.popFirst() {
    guard flag.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("usage: authhub-webapp [--config FILE] [--env NAME] [--port N] [--api-audience URL] [--public-base-url URL]\n".utf8))
        exit(2)
    }
    options[String(flag.dropFirst(2))] = value
}
guard let port = Int(options["port"] ?? "8080"), (1...65_535).contains(port) else {
    FileHandle.standardError.write(Data("authhub-webapp: --port must be 1…65535\n".utf8))
    exit(2)
}
do {
    let registry = ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory())
    let hub = try AuthHub.load(configPath: options["config"] ?? "providers.json", environment: options["env"], registry: registry)
    guard let base = URL(string: options["public-base-url"] ?? "http://127.0.0.1:\(port)") else {
        FileHandle.standardError.write(Data("authhub-webapp: --public-base-url is not a URL\n".utf8))
        exit(2)
    }
    let csrfKey = ProcessInfo.processInfo.environment["AUTHHUB_CSRF_KEY"].map(Secret.init)
    let router = try await WebExampleApp.router(hub: hub, publicBaseURL: base, apiAudience: options["api-audience"], csrfKey: csrfKey)
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
    try await app.runService()
    try? await hub.shutdown()
} catch {
    FileHandle.standardError.write(Data("authhub-webapp: \((error as? AuthError)?.message ?? "\(error)")\n".utf8))
    exit(1)
}
