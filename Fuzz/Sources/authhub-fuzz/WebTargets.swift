import AuthHub
import AuthHubHummingbird
import AuthHubOIDC
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Logging
import NIOCore

// MARK: 12. Hostile requests to a web app (AuthHubHummingbird)

/// Where the fuzz target's requests come from: no channel, a logger that drops everything.
struct FuzzRequestSource: RequestContextSource {
    var logger: Logger { Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }) }
}

/// The request context of the fuzzed app (Hummingbird's own contexts need a channel).
struct FuzzWebContext: AuthRequestContext {
    typealias Source = FuzzRequestSource
    var coreContext: CoreRequestContextStorage
    var identity: AuthHubIdentity?

    init(source: FuzzRequestSource) {
        coreContext = CoreRequestContextStorage(source: source)
        identity = nil
    }
}

/// The OpenID provider's side, fixed: discovery, its keys, and a token endpoint whose ID token
/// never validates (so a callback goes as far as the exchange and is refused there). Bodies are kept
/// as arrays and made into `Data` per request: LeakSanitizer does not see the pointer inside a
/// global `Data`'s packed representation.
struct FuzzWebProviderTransport: HTTPTransport {
    let bodies: [String: [UInt8]] = [
        "/.well-known/openid-configuration": Array(#"{"issuer":"https://issuer.example.com/","authorization_endpoint":"https://issuer.example.com/authorize","token_endpoint":"https://issuer.example.com/token","jwks_uri":"https://issuer.example.com/jwks.json","userinfo_endpoint":"https://issuer.example.com/userinfo","end_session_endpoint":"https://issuer.example.com/logout","response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256","ES256"]}"#.utf8),
        "/jwks.json": fuzzJWKSBytes,
        "/token": Array(#"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","id_token":"a.b.c"}"#.utf8),
    ]

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        guard let path = request.url?.path, let bytes = bodies[path] else { throw TransportError(.connection, "no fixed reply for this path") }
        return HTTPReply(status: 200, headerFields: [.contentType: "application/json"], body: Data(bytes))
    }
}
let fuzzWebTransport = FuzzWebProviderTransport()

/// The one browser session the store holds: its cookie value (`<provider>.<created>.<random>`) and
/// the account it is stored under, made the way `AuthHubWeb` makes them.
let fuzzWebCookieRandom = base64url((0..<32).map { UInt8($0 &* 7 &+ 3) })
let fuzzWebCookie = "oidc.1767225000.\(fuzzWebCookieRandom)"
let fuzzWebAccount = "web.1767225000.\(base64url(SHA256.hash(data: Data(fuzzWebCookieRandom.utf8))))"

/// A valid access token for the API route (ES256, the fuzz JWKS's `ec-1`).
let fuzzAPIToken: String = {
    let claims = #"{"iss":"https://issuer.example.com/","sub":"user-1","aud":"https://api.example.com","exp":1767229200,"iat":1767225000,"scope":"read:things"}"#
    return signedToken(header: Array(#"{"alg":"ES256","typ":"JWT","kid":"ec-1"}"#.utf8), payload: Array(claims.utf8), rsa: false)
}()

/// The app: the session middleware, the sign-in routes under `/auth`, a page for signed-in users
/// and an API route behind the bearer middleware, over a hub with an in-memory store holding one
/// browser session. Built for every input: a process-wide app would keep keys (swift-crypto) and
/// pending sign-ins that LeakSanitizer reports, as it cannot see every pointer to them.
func makeFuzzWebResponder() async -> RouterResponder<FuzzWebContext> {
    let clock = FuzzClock()
    let environment = EnvironmentConfiguration(
        name: "fuzz", defaultProvider: "oidc", sessionStore: .memory,
        providers: [ProviderConfiguration(id: "oidc", type: "oidc", path: "environments.fuzz.providers[0]",
                                          values: ["issuer": "https://issuer.example.com/", "clientId": .string(fuzzClientID)])])
    let context = ProviderContext(transport: fuzzWebTransport, clock: clock, random: FuzzRandom(),
                                  logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
    guard let hub = try? AuthHub(environment: environment, registry: ProviderRegistry([OIDCPlugin()]), context: context),
          let web = try? AuthHubWeb(hub: hub, configuration: WebSignInConfiguration(publicBaseURL: URL(string: "http://127.0.0.1:8080")!,
                                                                                  csrfKey: Secret("fuzz-csrf-key-0123456789abcdef"))) else {
        fatalError("web app")
    }
    do {
        let session = Session(providerID: "oidc", accessToken: Secret("at"), tokenType: "Bearer", refreshToken: Secret("rt"),
                              expiresAt: Date(timeIntervalSince1970: 1_767_229_200), userID: "user-1", claims: ["sub": "user-1", "email": "ada@example.com"],
                              issuedAt: Date(timeIntervalSince1970: 1_767_225_000))
        _ = try? await hub.manager(provider: "oidc", account: fuzzWebAccount).store(session)
    }
    let api = APIClient(provider: "oidc", baseURL: URL(string: "https://issuer.example.com/")!, transport: fuzzWebTransport, clock: clock)
    let verifier = AccessTokenVerifier(issuer: "https://issuer.example.com/", audience: "https://api.example.com",
                                       keys: JWKSCache(jwksURI: "/jwks.json", api: api), clock: clock)
    let router = Router(context: FuzzWebContext.self)
    router.add(middleware: web.sessionMiddleware(context: FuzzWebContext.self))
    router.addRoutes(web.routes(context: FuzzWebContext.self), atPath: "/auth")
    router.group("me").add(middleware: IsAuthenticatedMiddleware()).get { _, context in
        try context.requireIdentity().email ?? "-"
    }
    router.group("api").add(middleware: AuthHubBearerMiddleware<FuzzWebContext>(verifiers: ["oidc": verifier], requiredScopes: ["read:things"]))
        .add(middleware: IsAuthenticatedMiddleware()).get("things") { _, context in try context.requireIdentity().subject ?? "-" }
    return router.buildResponder()
}

/// AUTHHUB_FUZZ_WEB_TRACE=1 prints each request's status (to check that the seeds reach what they
/// are meant to: the signed-in page answers 200 with the seeded session, the API 200 with the token).
let fuzzWebTrace = ProcessInfo.processInfo.environment["AUTHHUB_FUZZ_WEB_TRACE"] != nil

let fuzzWebMethods: [HTTPRequest.Method] = [.get, .post, .head, .put, .delete, .options]

/// Seam: one request to the app, built from the input: method (one byte), then path with query,
/// `Cookie`, `Authorization`, `Origin`, `Content-Type` (each a chunk; an empty one is left out),
/// then the body. Every outcome is an HTTP answer or an error the app turns into one; none may trap.
let webTarget = FuzzTarget(name: "web", summary: "AuthHubHummingbird routes and middlewares on hostile requests") { bytes in
    var reader = FuzzReader(bytes)
    let method = reader.pick(fuzzWebMethods)
    let path = reader.string()
    var fields = HTTPFields()
    for name in [HTTPField.Name.cookie, .authorization, .origin, .contentType] {
        let value = reader.string()
        if !value.isEmpty { fields.append(HTTPField(name: name, value: value)) }
    }
    let body = reader.rest()
    let head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8080", path: path.isEmpty ? "/" : path, headerFields: fields)
    let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body)))
    runBlocking {
        let responder = await makeFuzzWebResponder()
        let response = try? await responder.respond(to: request, context: FuzzWebContext(source: FuzzRequestSource()))
        if fuzzWebTrace {
            FileHandle.standardError.write(Data("web: \(method) \(head.path ?? "") -> \(response.map { "\($0.status.code)" } ?? "error")\n".utf8))
        }
    }
}

/// Seeds: a sign-in start, a callback with a made-up state, the signed-in page with the stored
/// session's cookie, a sign-out with and without its CSRF token, and the API with a valid token.
func webSeeds() -> [(name: String, bytes: [UInt8])] {
    func request(_ method: UInt8, _ path: String, cookie: String = "", authorization: String = "", origin: String = "",
                 contentType: String = "", body: String = "") -> [UInt8] {
        [method] + Script.chunk(path) + Script.chunk(cookie) + Script.chunk(authorization) + Script.chunk(origin) + Script.chunk(contentType)
            + Array(body.utf8)
    }
    return [
        ("login", request(0, "/auth/login?provider=oidc&returnTo=/me")),
        ("callback", request(0, "/auth/callback?code=c&state=fuzz-state", cookie: "authhub-signin=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG")),
        ("me", request(0, "/me", cookie: "authhub-session=\(fuzzWebCookie)")),
        ("logout", request(1, "/auth/logout", cookie: "authhub-session=\(fuzzWebCookie)", origin: "http://127.0.0.1:8080",
                           contentType: "application/x-www-form-urlencoded", body: "csrf=not-the-token")),
        ("api", request(0, "/api/things", authorization: "Bearer \(fuzzAPIToken)")),
        ("api-bad", request(0, "/api/things", authorization: "bearer \t\(fuzzAPIToken.dropLast(3)) ")),
    ]
}
