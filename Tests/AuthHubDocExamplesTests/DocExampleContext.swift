import AuthHub
import AuthHubFactors
import Foundation
import HTTPTypes

// The names a documentation example may use without declaring them.
//
// scripts/doc-examples turns every Swift example of README.md, the DocC articles and the doc comments
// into a method of `DocExampleContext` (Generated/), so an example may use the members below as if
// they were in scope: the app's hub and the values a reader supplies (what the user typed, a path).
// A name that only one example needs is declared there instead, before its fence:
// `<!-- example: context auth0: Auth0Provider -->` (see scripts/doc-examples).
//
// The examples are compiled, never run: nothing here is ever called, and nothing here does anything.

/// What every documentation example has in scope.
struct DocExampleContext: Sendable {
    /// The app's hub (`AuthHub.load(registry: .builtIn)`).
    let hub: AuthHub

    // Values the user typed or the app holds.
    let email: String
    let password: String
    let pw: String
    let newPassword: String
    let newPw: String
    /// A one-time code the user typed (TOTP, emailed code).
    let code: String
    let typedCode: String
    let codeFromEmail: String
    /// A token from a link the user followed (email verification).
    let token: String
    /// Where the app keeps its state (passkeys, sessions).
    let stateDir: URL
    /// A PostgreSQL URL and a session-store key (32 random bytes, base64).
    let databaseURL: String
    let storeKey: String

    /// Opens `url` in the user's browser.
    func open(_ url: URL) {}
    func openBrowser(_ url: URL) {}
    /// Shows a flow's state in the app's UI.
    func render<State>(_ state: State) {}
    /// Signs the user in again (a step-up the flow asked for).
    func signInAgain(_ error: AuthError) async throws {}
    func signInAgain() async throws {}
}

/// What a helper below does when called: never, since the examples are not run.
struct DocExampleNeverRuns: Error {}

/// A custom session store, as in the examples of `SessionStoreConformance`.
struct MyStore: SessionStore {
    init(url: String) throws {}
    func load(_ key: SessionKey) async throws -> Session? { throw DocExampleNeverRuns() }
    func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session { throw DocExampleNeverRuns() }
    func remove(_ key: SessionKey) async throws { throw DocExampleNeverRuns() }
    func keys() async throws -> [SessionKey] { throw DocExampleNeverRuns() }
}

/// A fresh database for one test, as in the examples of `SessionStoreConformance`.
func freshDatabase() throws -> String { throw DocExampleNeverRuns() }

/// A custom HTTP transport, as in the examples of `HTTPTransportConformance`.
struct MyTransport: HTTPTransport {
    init(defaultTimeout: Duration, followRedirects: Bool, maxResponseBytes: Int) {}
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply { throw DocExampleNeverRuns() }
}

/// A custom passkey credential store, as in the example of `PasskeyCredentialStoreConformance`.
struct MyKeychainStore: PasskeyCredentialStore {
    init(service: String) throws {}
    func save(_ credential: PasskeyCredential) async throws { throw DocExampleNeverRuns() }
    func credential(id: [UInt8]) async throws -> PasskeyCredential? { throw DocExampleNeverRuns() }
    func credentials(relyingPartyID: String) async throws -> [PasskeyCredential] { throw DocExampleNeverRuns() }
    func nextSignCount(for id: [UInt8]) async throws -> UInt32 { throw DocExampleNeverRuns() }
    func remove(id: [UInt8]) async throws { throw DocExampleNeverRuns() }
    func all() async throws -> [PasskeyCredential] { throw DocExampleNeverRuns() }
}

/// A provider's error mapper, which README's plugin example leaves to the reader ("Write an `ErrorMapper`").
struct AcmeErrorMapper: ErrorMapper {
    func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        AuthError(.providerUnavailable, provider: provider)
    }
}

/// A third-party provider plugin (README's `AcmePlugin`; `MyPlugin` in doc comments).
struct AcmePlugin: ProviderPlugin {
    let type = "acme"
    let summary = "Acme Identity"
    let capabilities: Set<AuthCapability> = []
    let fields: [ConfigField] = []
    func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        throw DocExampleNeverRuns()
    }
}

typealias MyPlugin = AcmePlugin
