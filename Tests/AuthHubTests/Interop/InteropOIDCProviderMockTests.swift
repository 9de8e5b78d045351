import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// Counts requests that pass through to a real transport.
final class CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let sent = Mutex<[HTTPRequest]>([])
    init(_ inner: any HTTPTransport) { self.inner = inner }
    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        sent.withLock { $0.append(request) }
        return try await inner.send(request, body: body, timeout: timeout)
    }
    func count(path: String) -> Int { sent.withLock { $0.filter { $0.url?.path == path }.count } }
}

/// The session layer against a real, third-party OAuth 2 / OpenID server: `oidc-provider-mock`
/// (PyPI), started by `.ci/interop`, which sets `AUTHHUB_INTEROP_OIDC_ISSUER`. Skipped otherwise so
/// that `swift test` alone needs nothing but the toolchain.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AUTHHUB_INTEROP_OIDC_ISSUER"] != nil,
                "set by .ci/interop (oidc-provider-mock from PyPI)"))
struct InteropOIDCProviderMockTests {
    let issuer = URL(string: ProcessInfo.processInfo.environment["AUTHHUB_INTEROP_OIDC_ISSUER"] ?? "http://127.0.0.1:1")!
    let clock = FakeClock()
    let redirectURI = "http://127.0.0.1:1/callback"

    struct Discovery: Decodable {
        var issuer: String
        var authorization_endpoint: String
        var token_endpoint: String
        var userinfo_endpoint: String
        var jwks_uri: String
    }

    func discover() async throws -> Discovery {
        let api = APIClient(provider: "oidc-mock", baseURL: issuer, transport: URLSessionTransport())
        return try await api.send(APIRequest(.get, ".well-known/openid-configuration"), as: Discovery.self)
    }

    /// Drives the authorization endpoint as the mock's login form would (POST with the subject) and
    /// returns the code from the redirect, checking `state` comes back.
    func authorize(_ d: Discovery, subject: String) async throws -> String {
        let api = APIClient(provider: "oidc-mock", baseURL: issuer, transport: URLSessionTransport(followRedirects: false), retryPolicy: .none)
        let http = try api.prepare(APIRequest(
            .post, d.authorization_endpoint,
            query: [("client_id", "authhub-interop"), ("redirect_uri", redirectURI), ("response_type", "code"),
                    ("scope", "openid email"), ("state", "st-42")],
            body: .form([("sub", subject)])))
        let reply = try await URLSessionTransport(followRedirects: false).send(http.head, body: http.body, timeout: nil)
        #expect(reply.status == 302)
        let location = try #require(reply.headerFields["Location"].flatMap { URLComponents(string: $0) })
        let items = Dictionary((location.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(items["state"] == "st-42")
        return try #require(items["code"])
    }

    @Test func signInRefreshAndRevocationAgainstARealServer() async throws {
        let d = try await discover()
        #expect(d.issuer.hasPrefix(issuer.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))))
        let code = try await authorize(d, subject: "alice@example.com")

        let transport = CountingTransport(URLSessionTransport())
        let provider = ExampleOAuthProvider(
            id: "oidc-mock", baseURL: issuer, clientID: "authhub-interop", clientSecret: Secret("any-secret"),
            context: ProviderContext(transport: transport, clock: clock),
            tokenPath: d.token_endpoint, userInfoPath: d.userinfo_endpoint, basicAuth: true)
        let store: any SessionStore = InMemorySessionStore()
        let manager = SessionManager(key: SessionKey(provider: "oidc-mock"), provider: provider, store: store, clock: clock)

        // Code exchange with the server's real token endpoint.
        let signedIn = try await provider.signIn(.authorizationCode(code: Secret(code), codeVerifier: nil, redirectURI: redirectURI))
        #expect(signedIn.canRenew)
        #expect(signedIn.idToken != nil)
        try await manager.store(signedIn)
        #expect(try await provider.userInfo(signedIn).id == "alice@example.com")

        // Expire it locally; 50 concurrent callers: one refresh_token grant reaches the server.
        clock.advance(by: 24 * 3600)
        let tokenPath = URL(string: d.token_endpoint)!.path
        let before = transport.count(path: tokenPath)
        let renewed = try await withThrowingTaskGroup(of: Session.self) { group in
            for _ in 0..<50 { group.addTask { try await manager.session() } }
            var all: [Session] = []
            for try await s in group { all.append(s) }
            return all
        }
        #expect(transport.count(path: tokenPath) - before == 1)
        #expect(Set(renewed.map { $0.accessToken.revealed() }).count == 1)
        let fresh = try #require(renewed.first)
        #expect(fresh.accessToken != signedIn.accessToken)
        #expect(try await provider.userInfo(fresh).id == "alice@example.com")
        #expect(try await store.load(SessionKey(provider: "oidc-mock"))?.accessToken == fresh.accessToken)

        // The server revokes every token of the user: the next renewal is rejected with
        // invalid_grant, which (and only which) clears the stored session.
        let admin = APIClient(provider: "oidc-mock", baseURL: issuer, transport: URLSessionTransport())
        _ = try await admin.send(APIRequest(.post, "users/alice@example.com/revoke-tokens"))
        do {
            try await manager.renew()
            Issue.record("expected refreshTokenInvalid")
        } catch let e as AuthError {
            #expect(e.code == .refreshTokenInvalid, "\(e)")
            #expect(e.statusCode == 400)
        }
        #expect(try await store.load(SessionKey(provider: "oidc-mock")) == nil)
    }

    @Test func aWrongCodeIsRejectedWithTheServersError() async throws {
        let d = try await discover()
        let provider = ExampleOAuthProvider(
            id: "oidc-mock", baseURL: issuer, clientID: "authhub-interop", clientSecret: Secret("any-secret"),
            context: ProviderContext(transport: URLSessionTransport(), clock: clock), tokenPath: d.token_endpoint,
            basicAuth: true)
        do {
            _ = try await provider.signIn(.authorizationCode(code: Secret("not-a-code"), codeVerifier: nil, redirectURI: redirectURI))
            Issue.record("expected an error")
        } catch let e as AuthError {
            #expect(e.providerCode == "invalid_grant")
            #expect(e.statusCode == 400)
        }
    }
}
