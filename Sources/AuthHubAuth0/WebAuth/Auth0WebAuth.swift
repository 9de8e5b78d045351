import AuthHub
import AuthHubOIDC
import Foundation

/// Auth0 Web Auth (Universal Login) with PKCE, <doc:Auth0Endpoints>: “Web Auth” and “ID-token validation”: the `/authorize` URL in
/// Auth0.swift's layer order with `auth0Client` last, the callback's `state` check, the code
/// exchange, and ID-token validation against the tenant's JWKS (cached, refetched once on an
/// unknown `kid`) with the configured leeway.
///
/// Use ``start(redirectURI:options:)`` and ``finish(callback:transaction:)`` with your own browser
/// and redirect handling, or ``signIn(open:timeout:options:)`` for the RFC 8252 loopback flow a
/// command-line tool or desktop app uses.
public struct Auth0WebAuth: Sendable {
    /// Per-sign-in choices (the provider-neutral ``BrowserSignInOptions``; Auth0 honours every
    /// field); nil values fall back to the provider's configuration.
    public typealias Options = BrowserSignInOptions

    let provider: Auth0Provider

    /// The expected `iss`: the tenant's base URL with its trailing slash.
    public var issuer: String { provider.configuration.baseURL.absoluteString }

    /// The pushed-authorization prefix Auth0 gives every `request_uri` (Auth0.swift refuses others).
    public static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"

    /// ``start(redirectURI:options:)``, then — with `pushedAuthorizationRequests` — the request
    /// pushed to `/oauth/par` with the application's authentication (RFC 9126; a DPoP proof too
    /// with `dpop`), so the browser's URL carries only `client_id` and the `request_uri` (which must
    /// start with ``requestURIPrefix``).
    /// - Throws: what ``start(redirectURI:options:)`` throws; the endpoint's mapped errors.
    public func begin(redirectURI: String? = nil, options: Options = Options()) async throws -> OIDCAuthorizationTransaction {
        let transaction = try authorizationTransaction(redirectURI: redirectURI, options: options)
        guard provider.configuration.pushedAuthorizationRequests else { return transaction }
        guard let endpoint = URL(string: "authorize", relativeTo: provider.configuration.baseURL)?.absoluteURL else {
            throw AuthError(.invalidConfiguration, message: "Cannot build the authorize URL of '\(provider.id)'.", provider: provider.id)
        }
        return try await provider.formTokenClient(dpopKey: transaction.dpopKey)
            .pushing(transaction, to: "oauth/par", authorizationEndpoint: endpoint, requestURIPrefix: Self.requestURIPrefix)
    }

    /// Builds the `/authorize` URL and the transaction (PKCE verifier, `state`, `nonce`) to finish with.
    /// - Parameter redirectURI: where Auth0 sends the browser back; nil: the configured `redirectURI`
    ///   (e.g. a server's fixed callback URL).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when neither is given, or when the provider
    ///   pushes its authorization requests (`pushedAuthorizationRequests`: use ``begin(redirectURI:options:)``).
    public func start(redirectURI: String? = nil, options: Options = Options()) throws -> OIDCAuthorizationTransaction {
        guard !provider.configuration.pushedAuthorizationRequests else {
            throw AuthError(.invalidConfiguration, message: "'\(provider.id)' pushes its authorization requests (pushedAuthorizationRequests): "
                            + "start Web Auth with begin(redirectURI:options:).", provider: provider.id)
        }
        return try authorizationTransaction(redirectURI: redirectURI, options: options)
    }

    private func authorizationTransaction(redirectURI: String?, options: Options) throws -> OIDCAuthorizationTransaction {
        let configuration = provider.configuration
        guard let redirectURI = redirectURI ?? configuration.redirectURI?.absoluteString else {
            throw AuthError(.invalidConfiguration,
                            message: "'\(provider.id)' has no redirectURI: give one to start(), or set redirectURI in providers.json.",
                            provider: provider.id)
        }
        guard let endpoint = URL(string: "authorize", relativeTo: configuration.baseURL)?.absoluteURL else {
            throw AuthError(.invalidConfiguration, message: "Cannot build the authorize URL of '\(provider.id)'.", provider: provider.id)
        }
        var trailing: [(String, String)] = []
        if let telemetry = provider.authentication.telemetry { trailing.append(("auth0Client", telemetry.value)) }
        try options.validate(provider: provider.id)
        // login_hint first among the extra parameters, which keep their order (and override the rest).
        let extra = (options.loginHint.map { [("login_hint", $0)] } ?? []) + options.parameters.map { ($0.name, $0.value) }
        let request = OIDCAuthorizationRequest(
            authorizationEndpoint: endpoint, clientId: configuration.clientId, redirectURI: redirectURI,
            defaultScope: configuration.scope, scope: options.scope, audience: options.audience ?? configuration.audience,
            connection: options.connection, connectionScope: options.connectionScope,
            organization: options.organization ?? configuration.organization,
            invitationURL: options.invitationURL, prompt: options.prompt, screenHint: options.screenHint, maxAge: options.maxAge,
            additionalParameters: extra, trailingParameters: trailing)
        var bound = request
        if configuration.dpop { bound.dpopKey = DPoPKey() }
        return try bound.makeTransaction(random: provider.context.random)
    }

    /// The browser logout URL (<doc:Auth0Endpoints>: “Logout”): `/v2/logout?[federated&]returnTo=…&client_id=…`.
    /// - Parameters:
    ///   - returnTo: where Auth0 sends the browser afterwards (an Allowed Logout URL).
    ///   - federated: also sign out of the upstream identity provider.
    public func logoutURL(returnTo: URL?, federated: Bool = false) throws -> URL {
        guard let endpoint = URL(string: "v2/logout", relativeTo: provider.configuration.baseURL)?.absoluteURL else {
            throw AuthError(.invalidConfiguration, message: "Cannot build the logout URL of '\(provider.id)'.", provider: provider.id)
        }
        return try OIDCLogoutRequest(endpoint: endpoint, clientId: provider.configuration.clientId, returnTo: returnTo,
                                     returnToParameter: "returnTo", federated: federated).url()
    }

    /// Parses the callback (the `state` must match), exchanges the code and validates the ID token;
    /// returns the session (not yet stored: `AuthHub.manager(...).store(_:)` does that).
    /// - Throws: ``AuthErrorCode/stateMismatch``, the provider's mapped callback error (e.g.
    ///   ``AuthErrorCode/accessDenied``), the exchange's error, or an ID-token validation failure.
    public func finish(callback: URL, transaction: OIDCAuthorizationTransaction) async throws -> Session {
        let response = try transaction.parseCallback(callback)
        // RFC 9207: an `iss` in the callback must be this tenant's (Auth0 does not say it sends one).
        try response.checkIssuer(issuer, required: false)
        // A bare "Unauthorized" (PKCE refused for a confidential application) is mapped by
        // Auth0ErrorMapper for this operation.
        let credentials = try await provider.authentication.exchange(code: response.code, codeVerifier: transaction.codeVerifier,
                                                                     redirectURI: transaction.redirectURI, dpopKey: transaction.dpopKey)
        let claims = try await provider.idTokenValidator.validate(
            credentials.idToken,
            expecting: IDTokenExpectations(issuer: issuer, transaction: transaction, leeway: provider.configuration.leeway))
        var session = provider.session(from: credentials)
        session.claims = claims.claims
        session.userID = claims.subject
        return session
    }

    /// The loopback flow (RFC 8252): listens on `127.0.0.1` — on a free port, or on the port and path
    /// of the configured `redirectURI` when that is a loopback URL (`http://127.0.0.1:8765/callback`,
    /// sent exactly as configured) — calls `open` with the `/authorize` URL (open a browser, or print
    /// it), waits for the one redirect and finishes.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the configured `redirectURI` is not a
    ///   loopback URL this process can listen on (a server's callback: use ``start(redirectURI:options:)``
    ///   and ``finish(callback:transaction:)`` where that URL is served); ``AuthErrorCode/timeout``
    ///   when no redirect arrives within `timeout`, and whatever ``finish(callback:transaction:)`` throws.
    public func signIn(open: @Sendable (URL) async throws -> Void, timeout: Duration = .seconds(300),
                       options: Options = Options()) async throws -> Session {
        let receiver: LoopbackRedirectReceiver
        let redirectURI: String
        if let configured = provider.configuration.redirectURI {
            guard let loopback = LoopbackRedirect.listenable(configured) else {
                throw AuthError(.invalidConfiguration, message: "'\(provider.id)' sets redirectURI \(configured.absoluteString), "
                                + "which this process cannot receive; browser sign-in here needs a loopback one "
                                + "(http://127.0.0.1:PORT/path), or none. Serve that URL and use webAuth.begin()/finish() there.",
                                provider: provider.id)
            }
            receiver = try LoopbackRedirectReceiver(port: loopback.port, path: loopback.path)
            redirectURI = configured.absoluteString
        } else {
            receiver = try LoopbackRedirectReceiver()
            redirectURI = receiver.redirectURI
        }
        defer { receiver.close() }
        let transaction = try await begin(redirectURI: redirectURI, options: options)
        try await open(transaction.url)
        let callback = try await receiver.waitForCallback(timeout: timeout, clock: provider.context.clock)
        return try await finish(callback: callback, transaction: transaction)
    }
}

extension Auth0Provider: BrowserSignOutProvider {
    /// `/v2/logout?[federated&]returnTo=…&client_id=…` (<doc:Auth0Endpoints>: “Logout”); Auth0 needs no ID token.
    public func browserSignOutURL(idToken: Secret<String>?, returnTo: URL?, federated: Bool) async throws -> URL {
        try webAuth.logoutURL(returnTo: returnTo, federated: federated)
    }
}

extension Auth0Provider: BrowserSignInProvider {
    /// Web Auth (Universal Login with PKCE) for this tenant.
    public var webAuth: Auth0WebAuth { Auth0WebAuth(provider: self) }

    /// Web Auth's loopback flow (``Auth0WebAuth/signIn(open:timeout:options:)``) with `options`;
    /// Auth0 honours every ``BrowserSignInOptions`` field.
    public func signInWithBrowser(timeout: Duration, options: BrowserSignInOptions,
                                  open: @Sendable (URL) async throws -> Void) async throws -> Session {
        try await webAuth.signIn(open: open, timeout: timeout, options: options)
    }
}

extension Auth0Provider: BackChannelLogoutProvider {
    /// The tenant's logout tokens (OpenID Connect Back-Channel Logout): issued by the tenant's base
    /// URL, addressed to the application's client ID, signed with the tenant's keys (the JWKS ID
    /// tokens are validated with).
    public func logoutTokenValidator() async throws -> LogoutTokenValidator {
        LogoutTokenValidator(issuer: webAuth.issuer, clientId: configuration.clientId, keys: idTokenValidator.keys, clock: context.clock,
                             leeway: TimeInterval(configuration.leeway))
    }
}
