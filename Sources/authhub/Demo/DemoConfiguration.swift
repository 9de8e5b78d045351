import AuthHub
import AuthHubProviders
import Foundation

/// The embedded providers.json of `authhub demo`: every built-in provider pointed at the in-process
/// emulator through `${AUTHHUB_EMULATOR_URL}` / `${AUTHHUB_EMULATOR_HOST}`, sessions in memory.
/// Loading it goes through the same ConfigLoader, validation and registry as any app's file.
enum DemoConfiguration {
    static let json = """
        {
          "defaultEnvironment": "demo",
          "environments": {
            "demo": {
              "defaultProvider": "auth0",
              "sessionStore": { "type": "memory" },
              "providers": [
                { "id": "auth0", "type": "auth0", "domain": "${AUTHHUB_EMULATOR_URL}/auth0", "clientId": "authhub-demo" },
                { "id": "firebase", "type": "firebase", "apiKey": "demo-api-key", "projectId": "authhub-dev",
                  "emulatorHost": "${AUTHHUB_EMULATOR_HOST}" },
                { "id": "openfort", "type": "openfort", "publishableKey": "pk_test_00000000-0000-4000-8000-000000000001",
                  "baseURL": "${AUTHHUB_EMULATOR_URL}/openfort" },
                { "id": "turnkey", "type": "turnkey", "baseURL": "${AUTHHUB_EMULATOR_URL}/turnkey",
                  "organizationId": "00000000-0000-4000-8000-0000000000aa", "rpId": "localhost",
                  "proxyURL": "${AUTHHUB_EMULATOR_URL}/turnkey-proxy", "notarizerPublicKey": "${AUTHHUB_TURNKEY_NOTARIZER}" },
                { "id": "oidc", "type": "oidc", "issuer": "${AUTHHUB_EMULATOR_URL}/auth0/", "clientId": "authhub-demo",
                  "scopes": ["openid", "profile", "email", "offline_access"] }
              ]
            }
          }
        }
        """

    /// Loads the embedded configuration against an emulator on `port` and builds the hub.
    /// - Parameters:
    ///   - turnkeyNotarizer: the emulator's Turnkey notarizer public key, so that session JWT
    ///     signatures are checked as they would be against production.
    ///   - passkeyAuthenticator: the authenticator passkey sign-ins use (Turnkey).
    static func hub(emulatorPort port: Int, transport: any HTTPTransport, turnkeyNotarizer: String,
                    passkeyAuthenticator: any PasskeyAuthenticator) throws -> AuthHub {
        let variables = ["AUTHHUB_EMULATOR_URL": "http://127.0.0.1:\(port)", "AUTHHUB_EMULATOR_HOST": "127.0.0.1:\(port)",
                         "AUTHHUB_TURNKEY_NOTARIZER": turnkeyNotarizer]
        let environment = try ConfigLoader(registry: .builtIn, environmentVariables: variables)
            .load(data: Data(json.utf8), environment: "demo", file: "<embedded demo configuration>")
        return try AuthHub(environment: environment, registry: .builtIn,
                           context: ProviderContext(transport: transport, passkeyAuthenticator: passkeyAuthenticator))
    }
}
