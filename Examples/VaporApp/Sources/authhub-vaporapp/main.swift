import AuthHub
import AuthHubExamplePages
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
let options = ExampleOptions.parse(Array(CommandLine.arguments.dropFirst()), program: "authhub-vaporapp", defaultPort: 8081)
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
    try app.loadAuthHub(configPath: options.configPath, environment: options.environment, registry: registry,
                        web: WebSignInConfiguration(publicBaseURL: options.publicBaseURL, csrfKey: options.csrfKey))
    try await VaporExampleApp.configure(app, apiAudience: options.apiAudience)
    app.http.server.configuration.hostname = "127.0.0.1"
    app.http.server.configuration.port = options.port
    try await app.execute()
} catch {
    FileHandle.standardError.write(Data("authhub-vaporapp: \((error as? AuthError)?.message ?? "\(error)")\n".utf8))
    try? await app.asyncShutdown()
    exit(1)
}
try await app.asyncShutdown()
