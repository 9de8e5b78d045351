import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubFirebase
import AuthHubOpenfort
import AuthHubTesting
import AuthHubTurnkey
import Foundation

/// The web core's sign-in pages against the emulator: a hub with its Firebase project (`firebase`,
/// TOTP second factors of its own), its Openfort project (`openfort`, with providers.json's
/// `heldFactors` on: AuthHub's TOTP, passkeys and recovery codes) and its Turnkey organization
/// (`turnkey`, passkeys for the app's host), a memory store, the emulator and hub on one clock
/// (manual for the unit tests, the wall clock for the browser), and one user at each provider — the
/// Turnkey one's passkey in ``passkeys`` (a software authenticator, standing in for the browser's).
public struct PasswordWebEnvironment: Sendable {
    public static let email = "form@example.com"
    public static let password = "correct horse battery staple"
    public static let openfortKey = "pk_test_00000000-0000-4000-8000-000000000001"
    public static let turnkeyParent = "00000000-0000-4000-8000-0000000000aa"

    public let emulator: RunningEmulator
    public let hub: AuthHub
    public let clock: FakeClock?
    /// The Turnkey user's passkey (relying party: the app's host).
    public let passkeys: SoftwarePasskeyAuthenticator
    public let passkeyStore: InMemoryPasskeyCredentialStore

    /// - Parameters:
    ///   - base: the app's origin (held passkeys are made for its host, `localhost` in a browser).
    ///   - manualClock: a manual fake clock shared by emulator and hub (unit tests), or the wall clock.
    public static func make(base: URL, manualClock: Bool = true) async throws -> PasswordWebEnvironment {
        let clock = manualClock ? FakeClock(now: Date(), mode: .manual) : nil
        let emulator = try await Emulator.start(clock.map { EmulatorConfiguration(clock: $0) } ?? EmulatorConfiguration())
        let origin = "\(base.scheme ?? "http")://\(base.host ?? "localhost")" + (base.port.map { ":\($0)" } ?? "")
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "firebase", "sessionStore": {"type": "memory"},
          "heldFactors": {"providers": ["openfort"], "issuer": "AuthHub form test", "relyingPartyID": "\(base.host ?? "localhost")",
                          "origins": ["\(origin)"]},
          "providers": [
            {"id": "firebase", "type": "firebase", "apiKey": "dev-key", "projectId": "authhub-dev", "emulatorHost": "\(emulator.host):\(emulator.port)"},
            {"id": "openfort", "type": "openfort", "publishableKey": "\(openfortKey)", "baseURL": "\(emulator.url("/openfort").absoluteString)"},
            {"id": "turnkey", "type": "turnkey", "baseURL": "\(emulator.url("/turnkey").absoluteString)", "organizationId": "\(turnkeyParent)",
             "rpId": "localhost", "proxyURL": "\(emulator.url("/turnkey-proxy").absoluteString)", "notarizerPublicKey": "NOTARIZER"}]}}}
        """
        let registry = ProviderRegistry([FirebasePlugin(), OpenfortPlugin(), TurnkeyPlugin()]).registering(heldFactorFactory: HeldFactorsFactory())
        do {
            let wire = URLSessionTransport(defaultTimeout: .seconds(30))
            let config = config.replacingOccurrences(of: "NOTARIZER", with: try await emulator.turnkeyNotarizerPublicKey(transport: wire))
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let transport = URLSessionTransport(defaultTimeout: .seconds(30))
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: clock.map { ProviderContext(transport: transport, clock: $0) } ?? ProviderContext(transport: transport))
            // Firebase: a verified address (second factors need one), through the emulator's admin route.
            let seeded = try await transport.send(.post, emulator.url("/emulator/v1/projects/authhub-dev/accounts"),
                                                  headerFields: [.contentType: "application/json"],
                                                  body: Data(#"{"email":"\#(email)","password":"\#(password)","emailVerified":true}"#.utf8))
            guard seeded.status == 200 else { throw AuthError(.unknown, message: "seeding the Firebase user answered \(seeded.status)") }
            _ = try await hub.signUp(SignUpRequest(email: email, password: Secret(password)), provider: "openfort", account: "seed")
            _ = try await hub.signOut(provider: "openfort", account: "seed")
            let store = InMemoryPasskeyCredentialStore()
            let passkeys = try SoftwarePasskeyAuthenticator(store: store)
            _ = try await emulator.registerTurnkeyUser(email: email, authenticator: passkeys, relyingPartyID: "localhost",
                                                       parentOrganizationId: turnkeyParent, transport: wire)
            return PasswordWebEnvironment(emulator: emulator, hub: hub, clock: clock, passkeys: passkeys, passkeyStore: store)
        } catch {
            await emulator.stop()
            throw error
        }
    }

    public func tearDown() async { await emulator.stop() }
}
