import AuthHub
import AuthHubTesting
import Foundation

/// A third-party plugin written the way an outside package would write one: it uses only AuthHub's
/// public API. It speaks plain OAuth 2 (password and refresh-token grants, revocation, userinfo).
struct ExampleOAuthPlugin: ProviderPlugin {
    let type = "example-oauth"
    let summary = "A plain OAuth 2 server (test plugin)"
    let capabilities: Set<AuthCapability> = [.passwordSignIn, .refresh, .revoke, .userInfo]
    let fields: [ConfigField] = [
        ConfigField("baseURL", .url, required: true, description: "The server's base URL."),
        ConfigField("clientId", .string, required: true, description: "The client id."),
        ConfigField("clientSecret", .string, secret: true, description: "The client secret."),
    ]

    func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider {
        guard let url = configuration.url("baseURL") else {
            throw AuthError(.invalidConfiguration, message: "baseURL: required")
        }
        return ExampleOAuthProvider(id: configuration.id, baseURL: url, clientID: try configuration.requiredString("clientId"),
                                    clientSecret: configuration.secret("clientSecret"), context: context)
    }
}

struct ExampleOAuthErrorMapper: ErrorMapper {
    func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
        let error = StatusErrorMapper().map(response, provider: provider, operation: operation)
        guard error.providerCode == "invalid_grant" else { return error }
        return error.with(code: operation == .refresh ? .refreshTokenInvalid : .invalidCredentials, isRetryable: false)
    }
}

struct ExampleOAuthProvider: AuthProvider {
    let id: String
    let type = "example-oauth"
    let capabilities: Set<AuthCapability> = [.passwordSignIn, .refresh, .revoke, .userInfo]
    let clientID: String
    let clientSecret: Secret<String>?
    let api: APIClient
    let clock: any AuthClock
    let tokenPath: String
    let revokePath: String
    let userInfoPath: String
    /// Send the client secret as HTTP Basic (`client_secret_basic`) instead of in the form.
    let basicAuth: Bool

    init(id: String, baseURL: URL, clientID: String, clientSecret: Secret<String>?, context: ProviderContext,
         tokenPath: String = "oauth/token", revokePath: String = "oauth/revoke", userInfoPath: String = "userinfo",
         basicAuth: Bool = false) {
        self.id = id
        self.basicAuth = basicAuth
        self.tokenPath = tokenPath
        self.revokePath = revokePath
        self.userInfoPath = userInfoPath
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clock = context.clock
        self.api = APIClient(provider: id, baseURL: baseURL, context: context, errorMapper: ExampleOAuthErrorMapper())
    }

    private struct TokenReply: Decodable {
        var access_token: String
        var token_type: String?
        var refresh_token: String?
        var id_token: String?
        var expires_in: Double?
        var scope: String?
    }

    private func clientFields() -> [(String, String)] {
        var fields = [("client_id", clientID)]
        if let clientSecret, !basicAuth { fields.append(("client_secret", clientSecret.revealed())) }
        return fields
    }

    private func clientHeaders() -> HTTPFields {
        guard basicAuth, let clientSecret else { return [:] }
        let credentials = "\(FormEncoding.escape(clientID)):\(FormEncoding.escape(clientSecret.revealed()))"
        return [.authorization: "Basic \(Data(credentials.utf8).base64EncodedString())"]
    }

    private func session(from reply: TokenReply) -> Session {
        Session(providerID: id, accessToken: Secret(reply.access_token), tokenType: reply.token_type ?? "Bearer",
                idToken: reply.id_token.map(Secret.init), refreshToken: reply.refresh_token.map(Secret.init),
                expiresAt: reply.expires_in.map { clock.now.addingTimeInterval($0) }, scope: reply.scope)
    }

    func signIn(_ request: SignInRequest) async throws -> Session {
        var fields: [(String, String)]
        switch request {
        case .password(let identifier, let password, _, let scope):
            fields = [("grant_type", "password"), ("username", identifier), ("password", password.revealed())]
            if let scope { fields.append(("scope", scope)) }
        case .authorizationCode(let code, let verifier, let redirectURI):
            fields = [("grant_type", "authorization_code"), ("code", code.revealed()), ("redirect_uri", redirectURI)]
            if let verifier { fields.append(("code_verifier", verifier.revealed())) }
        default:
            throw unsupported("sign-in with \(request.methodName)")
        }
        let reply = try await api.send(APIRequest(.post, tokenPath, headerFields: clientHeaders(), body: .form(fields + clientFields()), retry: .never), as: TokenReply.self)
        return session(from: reply)
    }

    func refresh(_ session: Session, scope: String?) async throws -> Session {
        guard let refreshToken = session.refreshToken else { throw AuthError(.sessionExpired, provider: id) }
        var fields = [("grant_type", "refresh_token"), ("refresh_token", refreshToken.revealed())]
        if let scope { fields.append(("scope", scope)) }
        let reply = try await api.send(APIRequest(.post, tokenPath, headerFields: clientHeaders(), body: .form(fields + clientFields()),
                                                  operation: .refresh), as: TokenReply.self)
        return self.session(from: reply)
    }

    func signOut(_ session: Session) async throws {
        guard let token = session.refreshToken else { return }
        _ = try await api.send(APIRequest(.post, revokePath, body: .form([("token", token.revealed())] + clientFields())))
    }

    func userInfo(_ session: Session) async throws -> UserInfo {
        let headers: HTTPFields = [.authorization: "Bearer \(session.accessToken.revealed())"]
        let reply = try await api.send(APIRequest(.get, userInfoPath, headerFields: headers), as: [String: JSONValue].self)
        return UserInfo(id: reply["sub"]?.stringValue ?? "", email: reply["email"]?.stringValue, claims: reply)
    }
}

/// A token server on a `StubTransport`: issues rotating refresh tokens and rejects reused ones.
final class StubTokenServer: Sendable {
    let transport = StubTransport()
    private let state = Mutex(State())
    struct State {
        var refreshCount = 0
        var validRefreshToken = "rt-0"
        var issued = 0
    }

    /// What the refresh endpoint does next.
    enum Behaviour: Sendable {
        case rotate
        case noRotation
        case fail(StubTransport.Reply)
    }

    private let behaviour: Mutex<Behaviour>
    let gate: Gate?

    init(behaviour: Behaviour = .rotate, gate: Gate? = nil, lifetime: Double = 3600) {
        self.behaviour = Mutex(behaviour)
        self.gate = gate
        transport.on(.post, "/oauth/token") { [self] request in
            let form = request.formBody
            switch form["grant_type"] {
            case "password":
                guard form["password"] == "correct horse" else {
                    return .json(400, ["error": "invalid_grant", "error_description": "Wrong email or password."])
                }
                return .json(200, tokens(rotate: true, lifetime: lifetime))
            case "refresh_token":
                if let gate { await gate.wait() }
                let count = state.withLock { $0.refreshCount += 1; return $0.refreshCount }
                _ = count
                switch self.behaviour.withLock({ $0 }) {
                case .fail(let reply): return reply
                case .rotate, .noRotation:
                    guard form["refresh_token"] == state.withLock({ $0.validRefreshToken }) else {
                        return .json(400, ["error": "invalid_grant", "error_description": "Unknown or invalid refresh token."])
                    }
                    if case .noRotation = self.behaviour.withLock({ $0 }) { return .json(200, tokens(rotate: false, lifetime: lifetime)) }
                    return .json(200, tokens(rotate: true, lifetime: lifetime))
                }
            default:
                return .json(400, ["error": "unsupported_grant_type"])
            }
        }
        transport.on(.post, "/oauth/revoke") { _ in .raw(200, "") }
        transport.on(.get, "/userinfo") { _ in .json(200, ["sub": "user-1", "email": "a@example.com"]) }
    }

    func setBehaviour(_ b: Behaviour) { behaviour.withLock { $0 = b } }
    var refreshCount: Int { state.withLock { $0.refreshCount } }
    var validRefreshToken: String { state.withLock { $0.validRefreshToken } }

    private func tokens(rotate: Bool, lifetime: Double) -> JSONValue {
        state.withLock { s in
            s.issued += 1
            var body: [String: JSONValue] = [
                "access_token": .string("at-\(s.issued)"), "token_type": "Bearer",
                "expires_in": .number(lifetime), "id_token": .string("idt-\(s.issued)"),
            ]
            if rotate {
                s.validRefreshToken = "rt-\(s.issued)"
                body["refresh_token"] = .string(s.validRefreshToken)
            }
            return .object(body)
        }
    }
}

/// A one-shot gate: waiters suspend until `open()`.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private(set) var waiting = 0

    func wait() async {
        if isOpen { return }
        waiting += 1
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for w in waiters { w.resume() }
        waiters.removeAll()
    }
}
