import AuthHub
import Foundation

/// Firebase Authentication's REST API (<doc:FirebaseEndpoints>: “Hosts and API key”, “Emulator”, “Endpoints”): Identity Toolkit v1
/// (`accounts:*`) and the Secure Token service, on the core ``APIClient``.
///
/// - URLs: `https://identitytoolkit.googleapis.com/v1/accounts:<op>?key=…` and
///   `https://securetoken.googleapis.com/v1/token?key=…`; with an `emulatorHost` the same paths
///   under `http://<emulatorHost>/<production host>/…` (<doc:FirebaseEndpoints>: “Emulator”).
/// - Every call is a `POST` with the Web API key in the `key` query parameter (redacted in logs).
///   Identity Toolkit bodies are JSON with exactly the fields of <doc:FirebaseEndpoints>: “Endpoints” (`returnSecureToken: true` where
///   tokens are wanted); `tenantId`, when one is configured, on every call where firebase-ios-sdk
///   and firebase-js-sdk send it — `signUp`, `signInWithPassword`, every `sendOobCode`,
///   `resetPassword` (checking a code and confirming it) and every `accounts:update` (with an
///   `oobCode` or an `idToken`) — and not on `lookup` or `delete`, where neither SDK does; the refresh is the
///   documented form body `grant_type=refresh_token&refresh_token=…` and its reply is snake_case.
/// - Passwords, tokens and action codes are ``Secret``s and revealed only into request bodies.
/// - Errors are mapped by ``FirebaseErrorMapper`` (the Secure Token endpoint with
///   ``FirebaseErrorMapper/Endpoint/secureToken``).
/// - Second factors (TOTP) use Identity Platform v2: `https://identitytoolkit.googleapis.com/v2/accounts/<op>?key=…`
///   (emulator: `http://<emulatorHost>/identitytoolkit.googleapis.com/v2/accounts/<op>`) with the
///   firebase-js-sdk request bodies (`tenantId` on every one, as its `_addTidIfNecessary` adds it).
/// - Retries: the core client's rules (only 429/503 for POSTs); calls that consume a one-time code
///   are never retried, `accounts:lookup` (a read) is retried like an idempotent request.
package struct FirebaseAPI: Sendable {
    /// The production Identity Toolkit host.
    package static let identityToolkitHost = "identitytoolkit.googleapis.com"
    /// The production Secure Token host.
    package static let secureTokenHost = "securetoken.googleapis.com"

    /// The provider's settings.
    package let configuration: FirebaseConfiguration
    /// The client for `accounts:*`.
    let identityToolkit: APIClient
    /// The client for Identity Platform `v2/accounts/*` (second factors).
    let identityToolkitV2: APIClient
    /// The client for `/v1/token`.
    let secureToken: APIClient
    let clock: any AuthClock
    var provider: String { identityToolkit.provider }

    /// Creates a client.
    /// - Parameters:
    ///   - providerID: the provider id errors are attributed to.
    ///   - configuration: API key, project, emulator host, tenant.
    ///   - context: transport, clock, randomness and logger.
    package init(providerID: String, configuration: FirebaseConfiguration, context: ProviderContext) {
        self.configuration = configuration
        self.clock = context.clock
        identityToolkit = APIClient(provider: providerID, baseURL: Self.identityToolkitBaseURL(configuration), context: context,
                                    errorMapper: FirebaseErrorMapper(endpoint: .identityToolkit))
        identityToolkitV2 = APIClient(provider: providerID, baseURL: Self.identityToolkitV2BaseURL(configuration), context: context,
                                      errorMapper: FirebaseErrorMapper(endpoint: .identityToolkit))
        secureToken = APIClient(provider: providerID, baseURL: Self.secureTokenBaseURL(configuration), context: context,
                                errorMapper: FirebaseErrorMapper(endpoint: .secureToken))
    }

    /// `https://<host>/` in production, `http://<emulatorHost>/<host>/` with the emulator (<doc:FirebaseEndpoints>: “Emulator”).
    static func root(_ host: String, _ configuration: FirebaseConfiguration) -> String {
        if let emulator = configuration.emulatorHost { return "http://\(emulator)/\(host)/" }
        return "https://\(host)/"
    }

    /// The base of every `accounts:<op>` URL, ending in `/v1/`.
    package static func identityToolkitBaseURL(_ configuration: FirebaseConfiguration) -> URL {
        URL(string: root(identityToolkitHost, configuration) + "v1/") ?? URL(fileURLWithPath: "/")
    }

    /// The base of every Identity Platform `accounts/<op>` URL, ending in `/v2/`:
    /// `https://identitytoolkit.googleapis.com/v2/` (emulator: `http://<emulatorHost>/identitytoolkit.googleapis.com/v2/`).
    package static func identityToolkitV2BaseURL(_ configuration: FirebaseConfiguration) -> URL {
        URL(string: root(identityToolkitHost, configuration) + "v2/") ?? URL(fileURLWithPath: "/")
    }

    /// The base of the token URL, ending in `/v1/`.
    package static func secureTokenBaseURL(_ configuration: FirebaseConfiguration) -> URL {
        URL(string: root(secureTokenHost, configuration) + "v1/") ?? URL(fileURLWithPath: "/")
    }

    // MARK: - Sending

    var keyQuery: [(String, String)] { [("key", configuration.apiKey.revealed())] }

    /// POSTs a JSON body to `accounts:<op>` and decodes the reply.
    func accounts<Body: Encodable, Reply: Decodable>(_ op: String, _ body: Body, as reply: Reply.Type, operation: AuthOperation,
                                                    headerFields headers: HTTPFields = [:], retry: APIRequest.RetryMode = .automatic) async throws -> Reply {
        let request = try APIRequest.json(.post, "accounts:\(op)", body, query: keyQuery, headerFields: headers, retry: retry, operation: operation)
        return try await identityToolkit.send(request, as: reply)
    }

    /// POSTs a JSON body to `v2/accounts/<op>` and decodes the reply. Never retried: every
    /// v2 call here consumes a one-time code or session.
    func accountsV2<Body: Encodable, Reply: Decodable>(_ op: String, _ body: Body, as reply: Reply.Type,
                                                      operation: AuthOperation = .mfa) async throws -> Reply {
        let request = try APIRequest.json(.post, "accounts/\(op)", body, query: keyQuery, retry: .never, operation: operation)
        return try await identityToolkitV2.send(request, as: reply)
    }

    /// `tenantId` when one is configured.
    var tenant: String? { configuration.tenantId }

    /// `X-Firebase-Locale`: the language of the email Firebase sends.
    package static let localeField = HTTPField.Name.constant("X-Firebase-Locale")

    static func localeHeader(_ locale: String?) -> HTTPFields {
        var headers: HTTPFields = [:]
        if let locale { headers[Self.localeField] = locale }
        return headers
    }
}
