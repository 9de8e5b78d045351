import AuthHub
import AuthHubPostgres
import AuthHubProviders
import AuthHubVapor
import AuthHubVaporExample
import Foundation
import Vapor

// The Vapor example web app (see Examples/VaporApp/README.md):
//   swift run authhub-vaporapp [--config providers.json] [--env NAME] [--port 8081] [--api-audience URL] [--public-base-url URL]
// It signs users in with every web-capable provider of providers.json and serves
// http://127.0.0.1:PORT (loopback development mode: plain-HTTP cookies). Its providers talk through
// Vapor's own HTTP client. `--public-base-url` names the address browsers use when that is not the
// app's own (replicas behind a load balancer on loopback); replicas then share the CSRF key in
// AUTHHUB_CSRF_KEY. providers.json may use the `postgres` store.
var arguments = CommandLine.arguments.dropFirst()
var options: [String: String] = [:]
while let flag = arguments.popFirst() {
    guard flag.hasPrefix("--"), let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("usage: authhub-vaporapp [--config FILE] [--env NAME] [--port N] [--api-audience URL] [--public-base-url URL]\n".utf8))
        exit(2)
    }
    options[String(flag.dropFirst(2))] = value
}
guard let port = Int(options["port"] ?? "8081"), (1...65_535).contains(port),
      let base = URL(string: options["public-base-url"] ?? "http://127.0.0.1:\(port)") else {
    FileHandle.standardError.write(Data("authhub-vaporapp: --port must be 1…65535\n".utf8))
    exit(2)
}
let app: Application
do {
    // Vapor's own command-line arguments are not used: the server is configured here.
    app = try await Application.make(.detect(arguments: ["authhub-vaporapp"]))
} catch {
    FileHandle.standardError.write(Data("authhub-vaporapp: \(error)\n".utf8))
    exit(1)
}
do {
    let registry = ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory())
    let csrfKey = ProcessInfo.processInfo.environment["AUTHHUB_CSRF_KEY"].map(Secret.init)
    try app.loadAuthHub(configPath: options["config"] ?? "providers.json", environment: options["env"], registry: registry,
                        web: WebSignInConfiguration(publicBaseURL: base, csrfKey: csrfKey))
    try await VaporExampleApp.configure(app, apiAudience: options["api-audience"])
    app.http.server.configuration.hostname = "127.0.0.1"
    app.http.server.configuration.port = port
    try await app.execute()
} catch {
    FileHandle.standardError.write(Data("authhub-vaporapp: \((error as? AuthError)?.message ?? "\(error)")\n".utf8))
    try? await app.asyncShutdown()
    exit(1)
}
try await app.asyncShutdown()
