import AuthHub
import Foundation

/// A generic OpenID Connect provider as an ``AuthProvider``: discovery, the authorization code
/// flow with PKCE through the system browser and an RFC 8252 loopback redirect, ID-token
/// validation, and refresh.
///
/// Four ways to sign in (the fourth, device sign-in, when discovery names a
/// `device_authorization_endpoint`; see ``DeviceSignInFlow``):
/// - ``signInWithBrowser(timeout:options:open:)``: the whole flow with a ``LoopbackRedirectReceiver``
///   (on a free port, or on the configured `redirectURI` when it is a loopback URL with a port);
///   `open` shows the URL to the user.
/// - ``makeTransaction(redirectURI:options:)`` then ``completeSignIn(callbackURL:transaction:)``: for
///   apps that receive the redirect themselves (custom scheme, web server); the configured
///   `redirectURI` is used when none is given.
/// - ``signIn(_:)`` with ``SignInRequest/authorizationCode(code:codeVerifier:redirectURI:)``: a code
///   obtained elsewhere; its ID token is validated without a nonce (none is known).
///
/// Token requests are form-encoded (RFC 6749); a `clientSecret` is sent as HTTP Basic
/// authentication. The discovery document and the JWKS are fetched once per provider value and
/// kept (the JWKS is refetched, rate-limited, when a token names an unknown key).
public struct OIDCProvider: AuthProvider {
    /// The id from providers.json.
    public let id: String
    /// Always `oidc`.
    public var type: String { OIDCPlugin.typeName }
    /// Browser sign-in and refresh.
    public var capabilities: Set<AuthCapability> { [.webAuth, .refresh, .deviceSignIn] }
    /// The entry's settings.
    public let configuration: OIDCConfiguration
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext
    private let discovery: OIDCDiscoveryCache

    /// Creates the provider; nothing is fetched until a flow needs it.
    public init(id: String, configuration: OIDCConfiguration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
        self.discovery = OIDCDiscoveryCache()
    }

    /// The API client for this provider (OAuth error mapping, the hub's transport and clock).
    var api: APIClient {
        APIClient(provider: id, baseURL: configuration.issuer, context: context, errorMapper: OAuthErrorMapper())
    }

    /// The provider's discovered configuration (fetched once, then kept).
    /// - Throws: the errors of ``OIDCProviderMetadata/fetch(issuer:using:)``.
    public func metadata() async throws -> OIDCProviderMetadata {
        try await resolved().metadata
    }

    /// The discovered configuration and the key cache ID tokens are validated with.
    func discoveredKeys() async throws -> (OIDCProviderMetadata, JWKSCache) {
        let resolved = try await resolved()
        return (resolved.metadata, resolved.keys)
    }

    private func resolved() async throws -> OIDCDiscoveryCache.Resolved {
        let api = self.api
        let issuer = configuration.issuer
        let clock = context.clock
        return try await discovery.resolve {
            let metadata = try await OIDCProviderMetadata.fetch(issuer: issuer, using: api)
            return OIDCDiscoveryCache.Resolved(
                metadata: metadata, keys: JWKSCache(jwksURI: metadata.jwksURI.absoluteString, api: api, clock: clock))
        }
    }

    /// The ``BrowserSignInOptions`` a generic OpenID provider cannot honour: Auth0's own
    /// authorization parameters. (`audience` is sent as a parameter: many providers read it.)
    public static let unsupportedBrowserOptions: Set<String> = ["connection", "connection_scope", "organization", "invitation", "screen_hint"]

    /// Starts a sign-in: a fresh PKCE verifier, `state` and `nonce`, and the authorization URL
    /// with the configured scopes and additional parameters, then the per-sign-in `options`.
    /// - Parameters:
    ///   - redirectURI: where the provider sends the browser back; nil: the configured `redirectURI`.
    ///   - options: `scope`, `prompt`, `max_age` (then checked against `auth_time`), `login_hint`,
    ///     `audience` and extra parameters; the Auth0-only options are ``AuthErrorCode/unsupported``.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when no redirect URI is given or configured;
    ///   ``AuthErrorCode/invalidRequest`` for invalid options.
    public func makeTransaction(redirectURI: String? = nil,
                                options: BrowserSignInOptions = BrowserSignInOptions()) async throws -> OIDCAuthorizationTransaction {
        guard let redirectURI = redirectURI ?? configuration.redirectURI?.absoluteString else {
            throw AuthError(.invalidConfiguration,
                            message: "'\(id)' has no redirectURI: give one, or set redirectURI in providers.json.", provider: id)
        }
        try options.validate(provider: id)
        let refused = options.setOptionNames.filter(Self.unsupportedBrowserOptions.contains)
        guard refused.isEmpty else {
            throw AuthError(.unsupported, message: "The OpenID provider '\(id)' does not support "
                            + refused.joined(separator: ", ") + " (Auth0 options); pass provider-specific values as parameters.",
                            provider: id)
        }
        let metadata = try await metadata()
        // A per-sign-in choice replaces the configured parameter of the same name.
        let chosen = Set(options.setOptionNames + options.parameters.map(\.name))
        var extra = configuration.additionalParameters.sorted { $0.key < $1.key }.filter { !chosen.contains($0.key) }.map { ($0.key, $0.value) }
        if let loginHint = options.loginHint { extra.append(("login_hint", loginHint)) }
        extra += options.parameters.map { ($0.name, $0.value) }
        let request = OIDCAuthorizationRequest(
            authorizationEndpoint: metadata.authorizationEndpoint, clientId: configuration.clientId, redirectURI: redirectURI,
            defaultScope: configuration.scopes.joined(separator: " "), scope: options.scope, audience: options.audience,
            prompt: options.prompt, maxAge: options.maxAge, additionalParameters: extra)
        var bound = request
        if configuration.dpop { bound.dpopKey = DPoPKey() }
        let transaction = try bound.makeTransaction(random: context.random)
        guard configuration.pushedAuthorizationRequests || metadata.requirePushedAuthorizationRequests else { return transaction }
        return try await pushed(transaction, metadata: metadata)
    }

    /// The transaction with its authorization request pushed first (RFC 9126): every parameter of
    /// the authorization URL goes to the pushed authorization request endpoint with the client's
    /// authentication, and the URL the browser opens carries only `client_id` and the `request_uri`
    /// the provider returned.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when discovery names no
    ///   `pushed_authorization_request_endpoint`; the endpoint's mapped errors.
    private func pushed(_ transaction: OIDCAuthorizationTransaction, metadata: OIDCProviderMetadata) async throws -> OIDCAuthorizationTransaction {
        guard let endpoint = metadata.pushedAuthorizationRequestEndpoint else {
            throw AuthError(.invalidConfiguration, message: "'\(id)' is set to push authorization requests, but its discovery document names no "
                            + "pushed_authorization_request_endpoint.", provider: id)
        }
        return try await tokenClient(metadata, dpopKey: transaction.dpopKey)
            .pushing(transaction, to: endpoint.absoluteString, authorizationEndpoint: metadata.authorizationEndpoint)
    }

    /// Finishes a sign-in from the redirect: parses the callback, exchanges the code and validates
    /// the ID token (issuer, client, nonce, `max_age`).
    /// - Parameters:
    ///   - callbackURL: the redirect URL the browser was sent to.
    ///   - transaction: the transaction that produced the authorization URL.
    /// - Returns: the new session.
    public func completeSignIn(callbackURL: URL, transaction: OIDCAuthorizationTransaction) async throws -> Session {
        do {
            let response = try transaction.parseCallback(callbackURL)
            let resolved = try await resolved()
            try response.checkIssuer(resolved.metadata.issuer, required: resolved.metadata.authorizationResponseIssParameterSupported)
            let tokens = try await tokenClient(resolved.metadata, dpopKey: transaction.dpopKey).exchange(response, of: transaction)
            let expectations = IDTokenExpectations(issuer: resolved.metadata.issuer, transaction: transaction,
                                                   leeway: configuration.leeway)
            return try await session(from: tokens, resolved: resolved, expecting: expectations, scope: transaction.scope)
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    /// Signs in through the system browser with a loopback redirect (RFC 8252).
    /// - Parameters:
    ///   - timeout: how long to wait for the browser, on the hub's clock.
    ///   - options: per-sign-in choices (see ``makeTransaction(redirectURI:options:)``).
    ///   - open: shows the authorization URL to the user (opens a browser or prints it); it must
    ///     return without waiting for the sign-in to finish.
    /// - Returns: the new session.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the configured `redirectURI` is not a
    ///   loopback URL with a port (use ``makeTransaction(redirectURI:options:)`` and
    ///   ``completeSignIn(callbackURL:transaction:)`` where it is served); ``AuthErrorCode/timeout``
    ///   when no redirect arrives in time; every error of the flow.
    public func signInWithBrowser(timeout: Duration = .seconds(300), options: BrowserSignInOptions = BrowserSignInOptions(),
                                  open: @Sendable (URL) async throws -> Void) async throws -> Session {
        let receiver: LoopbackRedirectReceiver
        let redirectURI: String
        if let configured = configuration.redirectURI {
            guard let loopback = LoopbackRedirect.listenable(configured) else {
                throw AuthError(.invalidConfiguration, message: "'\(id)' sets redirectURI \(configured.absoluteString), which this "
                                + "process cannot receive; browser sign-in here needs a loopback one (http://127.0.0.1:PORT/path), "
                                + "or none. Serve that URL and use makeTransaction()/completeSignIn() there.",
                                provider: id)
            }
            receiver = try LoopbackRedirectReceiver(port: loopback.port, path: loopback.path)
            redirectURI = configured.absoluteString
        } else {
            receiver = try LoopbackRedirectReceiver()
            redirectURI = receiver.redirectURI
        }
        defer { receiver.close() }
        do {
            let transaction = try await makeTransaction(redirectURI: redirectURI, options: options)
            try await open(transaction.url)
            let callback = try await receiver.waitForCallback(timeout: timeout, clock: context.clock)
            return try await completeSignIn(callbackURL: callback, transaction: transaction)
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    /// Signs in with an authorization code obtained elsewhere
    /// (``SignInRequest/authorizationCode(code:codeVerifier:redirectURI:)``); every other request is
    /// ``AuthErrorCode/unsupported``.
    public func signIn(_ request: SignInRequest) async throws -> Session {
        guard case .authorizationCode(let code, let verifier, let redirectURI) = request else {
            throw unsupported("sign-in with \(request.methodName)")
        }
        guard let verifier else {
            throw AuthError(.invalidRequest, message: "A PKCE code verifier is required.", provider: id)
        }
        do {
            let resolved = try await resolved()
            let tokens = try await tokenClient(resolved.metadata, dpopKey: configuration.dpop ? DPoPKey() : nil)
                .exchange(code: code, codeVerifier: verifier, redirectURI: redirectURI)
            let expectations = IDTokenExpectations(issuer: resolved.metadata.issuer, clientId: configuration.clientId,
                                                   leeway: configuration.leeway)
            return try await session(from: tokens, resolved: resolved, expecting: expectations, scope: nil)
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    /// Renews a session with its refresh token and returns what the server said: a new ID token is
    /// validated (without a nonce) and gives the claims; what the reply leaves out (refresh token,
    /// ID token, claims, scope) is kept by the ``SessionManager`` when it merges the renewal.
    /// - Throws: ``AuthErrorCode/refreshTokenInvalid`` when the session has no refresh token or the
    ///   provider answers `invalid_grant`; other errors as mapped.
    public func refresh(_ session: Session, scope: String?) async throws -> Session {
        guard let refreshToken = session.refreshToken, !refreshToken.isEmpty else {
            throw AuthError(.refreshTokenInvalid, message: "The session has no refresh token.", provider: id)
        }
        do {
            let resolved = try await resolved()
            // invalid_grant is mapped to refreshTokenInvalid by OAuthErrorMapper (operation: refresh).
            // A DPoP-bound session proves its own key; the renewed tokens stay bound to it.
            let key = try session.dpopKey() ?? (configuration.dpop ? DPoPKey() : nil)
            let tokens = try await tokenClient(resolved.metadata, dpopKey: key).refresh(refreshToken: refreshToken, scope: scope)
            var renewed = Session(providerID: id, accountKey: session.accountKey, accessToken: tokens.accessToken,
                                  tokenType: tokens.tokenType.isEmpty ? "Bearer" : tokens.tokenType,
                                  refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt, scope: tokens.scope,
                                  secretExtras: Session.secretExtras(dpopKey: tokens.dpopKey))
            if !tokens.idToken.isEmpty {
                let expectations = IDTokenExpectations(issuer: resolved.metadata.issuer, clientId: configuration.clientId,
                                                       leeway: configuration.leeway)
                let claims = try await IDTokenValidator(keys: resolved.keys, clock: context.clock)
                    .validate(tokens.idToken, expecting: expectations)
                renewed.idToken = tokens.idToken
                renewed.userID = claims.subject
                renewed.claims = Self.publicClaims(claims)
            }
            return renewed
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    /// Revokes the session's refresh token (else its access token) at the discovered
    /// `revocation_endpoint` (RFC 7009), with the client's authentication; nothing to do when the
    /// provider advertises none.
    public func signOut(_ session: Session) async throws {
        do {
            let metadata = try await metadata()
            guard let endpoint = metadata.revocationEndpoint else { return }
            let (token, hint) = session.refreshToken.map { ($0, "refresh_token") } ?? (session.accessToken, "access_token")
            try await tokenClient(metadata).revoke(token, hint: hint, endpoint: endpoint.absoluteString)
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    /// The token client of device sign-in.
    func deviceTokenClient(_ metadata: OIDCProviderMetadata, dpopKey: DPoPKey? = nil) -> OIDCTokenClient {
        tokenClient(metadata, dpopKey: dpopKey)
    }

    /// The session of a device sign-in's tokens, the ID token validated against the discovered keys.
    func deviceSession(from tokens: OIDCTokenResponse, expecting expectations: IDTokenExpectations, scope: String?) async throws -> Session {
        try await session(from: tokens, resolved: try await resolved(), expecting: expectations, scope: scope)
    }

    private func tokenClient(_ metadata: OIDCProviderMetadata, dpopKey: DPoPKey? = nil) -> OIDCTokenClient {
        var client = OIDCTokenClient(api: api, tokenEndpoint: metadata.tokenEndpoint.absoluteString, clientId: configuration.clientId,
                                     clientSecret: configuration.clientSecret, bodyEncoding: .form, dpopKey: dpopKey,
                                     clientAuthentication: configuration.clientAuthentication, assertionAudience: metadata.issuer)
        client.assertionAudiencePerEndpoint = configuration.clientAssertionAudience == .endpoint
        return client
    }

    private func session(from tokens: OIDCTokenResponse, resolved: OIDCDiscoveryCache.Resolved,
                         expecting expectations: IDTokenExpectations, scope: String?) async throws -> Session {
        let claims = try await IDTokenValidator(keys: resolved.keys, clock: context.clock)
            .validate(tokens.idToken, expecting: expectations)
        return Session(providerID: id, accessToken: tokens.accessToken,
                       tokenType: tokens.tokenType.isEmpty ? "Bearer" : tokens.tokenType, idToken: tokens.idToken,
                       refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt, scope: tokens.scope ?? scope,
                       userID: claims.subject, claims: Self.publicClaims(claims),
                       secretExtras: Session.secretExtras(dpopKey: tokens.dpopKey), issuedAt: context.clock.now)
    }

    /// The ID token's claims without the ones that only bind the token to a request.
    static func publicClaims(_ claims: IDTokenClaims) -> [String: JSONValue] {
        claims.claims.filter { !["nonce", "at_hash", "c_hash"].contains($0.key) }
    }
}

/// The discovered configuration and key cache of one provider, resolved once by one caller while
/// concurrent callers wait for the same fetch; a failed fetch is not kept.
actor OIDCDiscoveryCache {
    struct Resolved: Sendable {
        var metadata: OIDCProviderMetadata
        var keys: JWKSCache
    }

    private var resolved: Resolved?
    private var inFlight: Task<Resolved, any Error>?

    func resolve(_ fetch: @escaping @Sendable () async throws -> Resolved) async throws -> Resolved {
        if let resolved { return resolved }
        if let inFlight { return try await inFlight.value }
        let task = Task { try await fetch() }
        inFlight = task
        defer { inFlight = nil }
        let value = try await task.value
        resolved = value
        return value
    }
}
