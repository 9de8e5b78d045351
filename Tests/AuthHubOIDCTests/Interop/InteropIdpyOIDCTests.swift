import AuthHub
import AuthHubOIDC
import AuthHubTesting
import Crypto
import Foundation
import Testing

private let environment = ProcessInfo.processInfo.environment
private let issuer = environment["AUTHHUB_INTEROP_IDPY_ISSUER"]

/// The generic OIDC provider against a third-party OpenID Provider built with idpyoidc (PyPI,
/// IdentityPython), served by `Tests/Interop/idpy_op.py` and started by `.ci/interop`, which sets
/// the `AUTHHUB_INTEROP_IDPY_*` variables. Skipped otherwise.
///
/// What idpyoidc 5.0.0 checks of AuthHub's requests (read in its source, see `idpy_op.py`):
/// - `private_key_jwt` (RFC 7523): the assertion's signature with the client's registered key, `aud`
///   the URL of the endpoint it is sent to (hence `clientAssertionAudience: endpoint`), `exp`, a
///   replayed `jti`; at the token endpoint and at the pushed-authorization endpoint.
/// - PAR (RFC 9126): the client authenticated at the endpoint, the `request_uri` single-use.
/// - DPoP (RFC 9449) at the token endpoint: the proof's signature with its own `jwk`, `htm` and `htu`;
///   tokens come back `token_type: DPoP` with `cnf.jkt`; at `/userinfo` a proof with `htm`, `htu` and
///   `ath` (`idpy_op.py --rfc-ath`: idpyoidc 5.0.0 wants `ath` as hex, RFC 9449 section 4.2 says
///   base64url — the flag swaps only that comparison).
/// - RFC 9207: the authorization response carries `iss`, which AuthHub checks.
/// - PKCE S256 and `client_secret_basic` / `client_secret_post`.
// Serialized: every sign-in's loopback listener takes the one redirect URI registered with the server.
@Suite(.serialized, .enabled(if: issuer != nil, "set by .ci/interop (idpyoidc from PyPI, Tests/Interop/idpy_op.py)"))
struct InteropIdpyOIDCTests {
    let issuer = URL(string: environment["AUTHHUB_INTEROP_IDPY_ISSUER"] ?? "http://127.0.0.1:1")!
    let redirectURI = environment["AUTHHUB_INTEROP_IDPY_REDIRECT"] ?? "http://127.0.0.1:1/callback"
    let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

    /// A hub with one `oidc` provider `idpy`: `entry` holds the fields beyond issuer, scopes and redirect URI.
    func hub(_ entry: String, variables: [String: String] = [:]) throws -> AuthHub {
        let config = """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "idpy", "sessionStore": {"type": "memory"},
          "providers": [{"id": "idpy", "type": "oidc", "issuer": "\(issuer.absoluteString)", "redirectURI": "\(redirectURI)",
                         "scopes": ["openid", "email", "profile", "offline_access"], \(entry)}]}}}
        """
        let registry = ProviderRegistry([OIDCPlugin()])
        let loaded = try ConfigLoader(registry: registry, environmentVariables: variables).load(data: Data(config.utf8))
        return try AuthHub(environment: loaded, registry: registry,
                           context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
    }

    /// The browser: the authorization endpoint signs `alice` in at once (idpyoidc's NoAuthn) and
    /// redirects to the loopback listener, which gets the code. Returns the authorization URL's
    /// query and the redirect's.
    func signIn(_ hub: AuthHub) async throws -> (authorize: [String: String], callback: [String: String], session: Session) {
        let seen = Mutex<([String: String], [String: String])>(([:], [:]))
        let session = try await hub.signInWithBrowser(provider: "idpy", timeout: .seconds(60)) { [wire] url in
            let reply = try await wire.send(.get, url)
            guard reply.status == 302 || reply.status == 303, let location = reply.headerFields["Location"].flatMap(URL.init(string:)) else {
                throw AuthError(.invalidRequest, message: "The authorization endpoint answered \(reply.status): \(String(decoding: reply.body.prefix(300), as: UTF8.self))")
            }
            seen.withLock { $0 = (Self.query(url), Self.query(location)) }
            // The browser follows the redirect once `open` has returned (the listener answers while sign-in waits for it).
            Task { _ = try? await wire.send(.get, location) }
        }
        let (authorize, callback) = seen.withLock { $0 }
        return (authorize, callback, session)
    }

    static func query(_ url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                   uniquingKeysWith: { a, _ in a })
    }

    static func claims(of jwt: String) -> [String: JSONValue]? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return nil }
        return (try? JSONValue.parse(data))?.objectValue
    }

    func userinfoEndpoint() async throws -> URL {
        let reply = try await wire.send(.get, URL(string: issuer.absoluteString + "/.well-known/openid-configuration")!)
        let document = try JSONValue.parse(reply.body)
        return try #require(document["userinfo_endpoint"]?.stringValue.flatMap(URL.init(string:)))
    }

    /// private_key_jwt at the PAR and token endpoints, PAR, RFC 9207 and DPoP-bound tokens through
    /// sign-in, renewal and the provider's userinfo endpoint called with `authorizedTransport`.
    @Test func privateKeyJWTPushedRequestsAndDPoPAgainstIdpyoidc() async throws {
        let keyPath = try #require(environment["AUTHHUB_INTEROP_IDPY_CLIENT_KEY_FILE"])
        let pem = try String(contentsOfFile: keyPath, encoding: .utf8)
        let hub = try hub("""
            "clientId": "authhub-pkjwt", "tokenEndpointAuthMethod": "private_key_jwt", "clientAssertionKey": "${IDPY_CLIENT_KEY}",
            "clientAssertionKeyID": "\(environment["AUTHHUB_INTEROP_IDPY_CLIENT_KEY_ID"] ?? "")", "clientAssertionAudience": "endpoint",
            "pushedAuthorizationRequests": true, "dpop": true
            """, variables: ["IDPY_CLIENT_KEY": pem])
        let (authorize, callback, session) = try await signIn(hub)
        // RFC 9126: the browser carries the client and the pushed request's handle, nothing else.
        #expect(Set(authorize.keys) == ["client_id", "request_uri"] && authorize["client_id"] == "authhub-pkjwt", "\(authorize.keys.sorted())")
        // RFC 9207: the server named itself in the response (and AuthHub compared it).
        #expect(callback["iss"] == issuer.absoluteString)
        // DPoP: the tokens are bound to the session's key.
        #expect(session.isDPoPBound && session.idToken != nil && session.refreshToken != nil)
        let key = try #require(try session.dpopKey())
        #expect(Self.claims(of: session.accessToken.revealed())?["cnf"]?["jkt"]?.stringValue == key.thumbprint)

        // The provider's userinfo endpoint, a resource server that checks the proof (htm, htu, ath).
        let userinfo = try await userinfoEndpoint()
        let transport = hub.authorizedTransport(origin: issuer, provider: "idpy")
        let info = try await transport.send(.get, userinfo)
        #expect(info.status == 200, "\(String(decoding: info.body.prefix(300), as: UTF8.self))")
        let profile = try JSONValue.parse(info.body)
        #expect(profile["email"] == "alice@example.com" && profile["sub"]?.stringValue == session.userID)
        // Without a proof the same token is refused there.
        let bare = try await wire.send(.get, userinfo, headerFields: [.authorization: "DPoP \(session.accessToken.revealed())"])
        #expect(bare.status == 401)

        // Renewal: private_key_jwt again (a new jti), a proof of the same key, tokens bound to it.
        let renewed = try await hub.refresh(provider: "idpy")
        #expect(renewed.accessToken != session.accessToken && renewed.isDPoPBound)
        #expect(try renewed.dpopKey() == key)
        #expect(Self.claims(of: renewed.accessToken.revealed())?["cnf"]?["jkt"]?.stringValue == key.thumbprint)
        #expect(try await transport.send(.get, userinfo).status == 200)
    }

    /// An assertion signed by a key the server does not have registered is refused at the pushed
    /// authorization endpoint: the server really checks AuthHub's signature.
    @Test func anAssertionFromAnUnregisteredKeyIsRefused() async throws {
        let stranger = P256.Signing.PrivateKey().pemRepresentation
        let hub = try hub("""
            "clientId": "authhub-pkjwt", "tokenEndpointAuthMethod": "private_key_jwt", "clientAssertionKey": "${IDPY_CLIENT_KEY}",
            "clientAssertionKeyID": "\(environment["AUTHHUB_INTEROP_IDPY_CLIENT_KEY_ID"] ?? "")", "clientAssertionAudience": "endpoint",
            "pushedAuthorizationRequests": true
            """, variables: ["IDPY_CLIENT_KEY": stranger])
        let error = await #expect(throws: AuthError.self) { _ = try await signIn(hub) }
        #expect(error?.providerCode == "invalid_client" && error?.statusCode == 401, "\(String(describing: error))")
    }

    /// `client_secret_basic` and `client_secret_post`, each at the PAR and token endpoints; a wrong
    /// secret is refused as `invalid_client`.
    @Test(arguments: [("authhub-basic", "client_secret_basic"), ("authhub-post", "client_secret_post")])
    func clientSecretsTheirWay(client: String, method: String) async throws {
        let secret = try #require(environment["AUTHHUB_INTEROP_IDPY_SECRET"])
        let entry = """
            "clientId": "\(client)", "clientSecret": "${IDPY_SECRET}", "tokenEndpointAuthMethod": "\(method)", "pushedAuthorizationRequests": true
            """
        let (_, callback, session) = try await signIn(try hub(entry, variables: ["IDPY_SECRET": secret]))
        #expect(callback["iss"] == issuer.absoluteString)
        #expect(session.tokenType.caseInsensitiveCompare("Bearer") == .orderedSame && session.refreshToken != nil && session.idToken != nil)
        let wrong = try hub(entry, variables: ["IDPY_SECRET": secret + "-not"])
        let error = await #expect(throws: AuthError.self) { _ = try await signIn(wrong) }
        #expect(error?.providerCode == "invalid_client", "\(String(describing: error))")
    }
}
