import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubFactors
import AuthHubOIDC
import AuthHubTesting
import Crypto
import Foundation

/// The browser stage's shared part (`.ci/browser`): a real headless Chromium driven by
/// `Tests/Browser/browser_sign_in.py` (Selenium) through an example web app and the emulator's
/// login page. `.ci/browser` sets `AUTHHUB_BROWSER_PYTHON`; a plain `swift test` skips the tests.
public enum BrowserScript {
    public static let email = "browser@example.com"
    public static let password = "correct horse battery staple"

    /// The account pages' step-up window in the held-factor browser runs: short, so the script sees
    /// a sensitive action sent through re-authentication (it waits this long first).
    public static let stepUpSeconds = Duration.seconds(4)

    /// Whether the browser stage's tools are there (`AUTHHUB_BROWSER_PYTHON` set by `.ci/browser`).
    public static var isEnabled: Bool { ProcessInfo.processInfo.environment["AUTHHUB_BROWSER_PYTHON"] != nil }

    /// Starts the emulator with the browser user seeded, and a hub of its Auth0 tenant (memory store),
    /// and a loopback base URL with a free port for the app.
    public static func start() async throws -> (emulator: RunningEmulator, hub: AuthHub, base: URL) {
        let emulator = try await Emulator.start()
        let seeded = try await URLSessionTransport(defaultTimeout: .seconds(30)).send(
            .post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
            body: Data(#"{"email":"\#(email)","password":"\#(password)"}"#.utf8))
        guard seeded.status == 201 else {
            await emulator.stop()
            throw AuthError(.unknown, message: "seeding the browser user answered \(seeded.status)")
        }
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-browser"}]}}}
        """
        let registry = ProviderRegistry([Auth0Plugin()])
        do {
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
            guard let base = URL(string: "http://127.0.0.1:\(try ScriptedUpstream.freeLoopbackPort())") else {
                throw AuthError(.unknown, message: "no base URL")
            }
            return (emulator, hub, base)
        } catch {
            await emulator.stop()
            throw error
        }
    }

    /// Like ``start()``, for AuthHub-held factors: the emulator's tenant also as a generic OpenID
    /// Connect provider `oidc` (no second factors of its own), with providers.json's `heldFactors`
    /// on for it — TOTP, passkeys (relying party `localhost`) and recovery codes — and the app's
    /// base on `http://localhost` (browsers make passkeys on `localhost`, never on an IP address).
    public static func startHeld() async throws -> (emulator: RunningEmulator, hub: AuthHub, base: URL) {
        let (emulator, _, _) = try await start()
        let port = try ScriptedUpstream.freeLoopbackPort()
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "oidc", "sessionStore": {"type": "memory"},
          "heldFactors": {"providers": ["oidc"], "issuer": "AuthHub browser test", "relyingPartyID": "localhost", "origins": ["http://localhost:\(port)"]},
          "providers": [{"id": "oidc", "type": "oidc", "issuer": "\(emulator.url("/auth0/").absoluteString)", "clientId": "authhub-browser"}]}}}
        """
        let registry = ProviderRegistry([OIDCPlugin()]).registering(heldFactorFactory: HeldFactorsFactory())
        do {
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
            guard let base = URL(string: "http://localhost:\(port)") else { throw AuthError(.unknown, message: "no base URL") }
            return (emulator, hub, base)
        } catch {
            await emulator.stop()
            throw error
        }
    }

    /// Runs the script against the app at `base`: its exit status and everything it printed.
    /// Screenshots of every step go to `AUTHHUB_BROWSER_ARTIFACTS/<label>`.
    /// The password-provider script's step-up window (`browser_password_providers.py` waits it out once).
    public static let formStepUpSeconds = 15

    /// Starts the emulator's Firebase and Openfort projects for the sign-in form's browser run, with
    /// a user at each, and a free base URL on `localhost` (AuthHub-held passkeys need the name).
    public static func startPassword() async throws -> (environment: PasswordWebEnvironment, base: URL) {
        let port = try ScriptedUpstream.freeLoopbackPort()
        guard let base = URL(string: "http://localhost:\(port)") else { throw AuthError(.unknown, message: "no base URL") }
        return (try await PasswordWebEnvironment.make(base: base, manualClock: false), base)
    }

    /// The variables the password-provider script reads: the step-up window it waits out, and the
    /// Turnkey user's passkey (a throwaway test key) for Chromium's virtual authenticator.
    public static func passwordScriptVariables(_ environment: PasswordWebEnvironment) async throws -> [String: String] {
        let credentials = try await environment.passkeyStore.all()
        guard let passkey = credentials.first else { throw AuthError(.unknown, message: "no Turnkey passkey was made") }
        let key = try P256.Signing.PrivateKey(rawRepresentation: passkey.privateKey.revealed())
        let description: JSONValue = ["id": .string(passkey.idBase64URL), "rpId": .string(passkey.relyingPartyID),
                                      "userHandle": .string(Base64URL.encode(passkey.user.id)),
                                      "privateKey": .string(Base64URL.encode(key.derRepresentation))]
        return ["AUTHHUB_STEP_UP_SECONDS": String(formStepUpSeconds),
                "AUTHHUB_TURNKEY_PASSKEY": String(decoding: try description.serialized(), as: UTF8.self)]
    }

    public static func run(base: URL, label: String, script name: String = "browser_sign_in.py", email: String = email,
                           variables: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let python = environment["AUTHHUB_BROWSER_PYTHON"] else { throw AuthError(.invalidConfiguration, message: "AUTHHUB_BROWSER_PYTHON is not set") }
        let artifacts = (environment["AUTHHUB_BROWSER_ARTIFACTS"] ?? NSTemporaryDirectory() + "authhub-browser") + "/" + label
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Browser/" + name).path
        let run = try SpawnedProcess.run(URL(fileURLWithPath: python), [script, base.absoluteString, email, password, artifacts],
                                         environment: variables.isEmpty ? nil : environment.merging(variables) { $1 },
                                         mergeErrors: true)
        return (run.status, run.standardOutput)
    }
}
