import AuthHub
import AuthHubAsyncHTTPClient
import AuthHubExamplePages
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
// replicas then share the CSRF key in AUTHHUB_CSRF_KEY. providers.json may use the `postgres` store
// and `"transport": "async-http-client"` (AsyncHTTPClient instead of URLSession for the providers).
let options = ExampleOptions.parse(Array(CommandLine.arguments.dropFirst()), program: "authhub-webapp", defaultPort: 8080)
do {
    let registry = ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory())
        .registering(transportFactory: AsyncHTTPClientTransportFactory())
    let hub = try AuthHub.load(configPath: options.configPath, environment: options.environment, registry: registry)
    let router = try await WebExampleApp.router(hub: hub, publicBaseURL: options.publicBaseURL, apiAudience: options.apiAudience,
                                                csrfKey: options.csrfKey)
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: options.port)))
    try await app.runService()
    try? await hub.shutdown()
} catch {
    FileHandle.standardError.write(Data("authhub-webapp: \((error as? AuthError)?.message ?? "\(error)")\n".utf8))
    exit(1)
}
