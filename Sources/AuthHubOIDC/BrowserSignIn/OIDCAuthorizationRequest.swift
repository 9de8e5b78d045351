import AuthHub
import Foundation

/// What to ask for at the authorization endpoint: the inputs of an authorization code + PKCE flow.
///
/// ``makeTransaction(random:)`` turns a request into an ``OIDCAuthorizationTransaction``: the URL to
/// open in the browser plus the PKCE verifier, `state` and `nonce` that only this transaction knows.
///
/// The query is built in layers, later layers overriding earlier ones (the order of
/// <doc:OIDCFlows>: “Authorization request”, as Auth0's SDK builds it, which matches what OIDC
/// clients generally do):
/// 1. PKCE: `code_challenge`, `code_challenge_method=S256`, `nonce`.
/// 2. Fixed values: `scope` (``defaultScope``), `client_id`, `response_type=code`, `redirect_uri`,
///    `state`, `nonce`, `organization`.
/// 3. ``invitationURL``: `organization` and `invitation` read from the link's query.
/// 4. `max_age` (``maxAge``).
/// 5. `dpop_jkt` (``dpopThumbprint``).
/// 6. The caller's values: `connection`, `scope`, `connection_scope`, `audience`, `prompt`,
///    `screen_hint`, then every ``additionalParameters`` entry (which therefore win over everything).
/// 7. Fix-ups: `openid` is prepended to `scope` when missing, then ``trailingParameters`` are
///    appended. Names and values are percent-encoded with RFC 3986 unreserved characters only, so
///    `+` is always sent as `%2B` and a space as `%20`.
///
/// The transaction expects the `state`, `nonce`, `max_age` and `organization` that were actually
/// sent, so a value overridden through ``additionalParameters`` is the one checked on the callback
/// and in the ID token.
public struct OIDCAuthorizationRequest: Sendable {
    /// The scope used when the caller sets none (the generic OIDC plugin's default).
    public static let defaultScope = "openid profile email"

    /// The provider's authorization endpoint (from discovery, or e.g. `https://tenant/authorize`).
    public var authorizationEndpoint: URL
    /// The client ID registered with the provider.
    public var clientId: String
    /// The redirect URI, as the exact absolute string that the code exchange sends again.
    public var redirectURI: String
    /// The scope of layer 2, used unless ``scope`` or a `scope` parameter overrides it.
    public var defaultScope: String
    /// The requested scope (layer 6); `openid` is prepended when missing.
    public var scope: String?
    /// The API audience (`audience`).
    public var audience: String?
    /// The connection (identity source) to use (`connection`).
    public var connection: String?
    /// Scopes for the upstream identity provider of the connection (`connection_scope`).
    public var connectionScope: String?
    /// The organization to sign in to (`organization`).
    public var organization: String?
    /// An organization invitation link; its query must carry `organization` and `invitation`.
    public var invitationURL: URL?
    /// `prompt` (e.g. `login`, `none`, `consent`).
    public var prompt: String?
    /// `screen_hint` (e.g. `signup`).
    public var screenHint: String?
    /// `max_age` in seconds: the longest time since the user last authenticated; also checked
    /// against the ID token's `auth_time`.
    public var maxAge: Int?
    /// The JWK thumbprint of a DPoP key (`dpop_jkt`), when DPoP is used.
    public var dpopThumbprint: String?
    /// The DPoP key the tokens will be bound to (RFC 9449): its thumbprint is sent as `dpop_jkt`
    /// (unless ``dpopThumbprint`` names another) and the transaction keeps it for the code exchange.
    public var dpopKey: DPoPKey?
    /// A caller-chosen `state`; by default 32 random bytes (43 base64url characters).
    public var state: Secret<String>?
    /// A caller-chosen `nonce`; by default 32 random bytes (43 base64url characters).
    public var nonce: Secret<String>?
    /// Extra parameters (`login_hint`, `ui_locales`, …) in order; they override every other value.
    public var additionalParameters: [(String, String)]
    /// Parameters appended after every fix-up (e.g. a telemetry value a plugin adds last).
    public var trailingParameters: [(String, String)]

    /// Creates a request.
    /// - Parameters:
    ///   - authorizationEndpoint: where the browser goes.
    ///   - clientId: the registered client ID.
    ///   - redirectURI: the absolute redirect URI string.
    ///   - defaultScope: the scope used when no other is given.
    public init(authorizationEndpoint: URL, clientId: String, redirectURI: String,
                defaultScope: String = OIDCAuthorizationRequest.defaultScope, scope: String? = nil,
                audience: String? = nil, connection: String? = nil, connectionScope: String? = nil,
                organization: String? = nil, invitationURL: URL? = nil, prompt: String? = nil,
                screenHint: String? = nil, maxAge: Int? = nil, dpopThumbprint: String? = nil,
                state: Secret<String>? = nil, nonce: Secret<String>? = nil,
                additionalParameters: [(String, String)] = [], trailingParameters: [(String, String)] = []) {
        self.authorizationEndpoint = authorizationEndpoint
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.defaultScope = defaultScope
        self.scope = scope
        self.audience = audience
        self.connection = connection
        self.connectionScope = connectionScope
        self.organization = organization
        self.invitationURL = invitationURL
        self.prompt = prompt
        self.screenHint = screenHint
        self.maxAge = maxAge
        self.dpopThumbprint = dpopThumbprint
        self.state = state
        self.nonce = nonce
        self.additionalParameters = additionalParameters
        self.trailingParameters = trailingParameters
    }

    /// Draws a fresh PKCE verifier, `state` and `nonce` (in that order) and builds the URL.
    /// - Parameter random: the randomness source (inject a fixed one in tests).
    /// - Throws: ``AuthErrorCode/invalidRequest`` for an invitation link without `organization`
    ///   and `invitation`; ``AuthErrorCode/invalidConfiguration`` for an endpoint that is not an
    ///   absolute URL; ``AuthErrorCode/unknown`` when the random source returns too few bytes for
    ///   the PKCE verifier.
    public func makeTransaction(random: any RandomSource = SystemRandom()) throws -> OIDCAuthorizationTransaction {
        let verifierBytes = random.bytes(32)
        guard verifierBytes.count == 32 else {
            throw AuthError(.unknown, message: "The random source did not return enough bytes for a PKCE verifier.")
        }
        let pkce = PKCE(verifier: Secret(Base64URL.encode(verifierBytes)))
        let state = self.state ?? Secret(Self.randomToken(random))
        let nonce = self.nonce ?? Secret(Self.randomToken(random))

        var query = OrderedParameters()
        // 1. PKCE defaults.
        query["code_challenge"] = pkce.challenge
        query["code_challenge_method"] = pkce.method
        query["nonce"] = nonce.revealed()
        // 2. Fixed values.
        query["scope"] = defaultScope
        query["client_id"] = clientId
        query["response_type"] = "code"
        query["redirect_uri"] = redirectURI
        query["state"] = state.revealed()
        query["nonce"] = nonce.revealed()
        if let organization { query["organization"] = organization }
        // 3. Invitation.
        if let invitationURL {
            let items = OrderedParameters.decodeQuery(of: invitationURL)
            guard let org = items.first(where: { $0.0 == "organization" })?.1, !org.isEmpty,
                  let invitation = items.first(where: { $0.0 == "invitation" })?.1, !invitation.isEmpty else {
                throw AuthError(.invalidRequest, message: "Invalid invitation URL: it must carry organization and invitation.")
            }
            query["organization"] = org
            query["invitation"] = invitation
        }
        // 4. max_age.
        if let maxAge { query["max_age"] = String(maxAge) }
        // 5. DPoP.
        if let jkt = dpopThumbprint ?? dpopKey?.thumbprint { query["dpop_jkt"] = jkt }
        // 6. Caller values.
        if let connection { query["connection"] = connection }
        if let scope { query["scope"] = scope }
        if let connectionScope { query["connection_scope"] = connectionScope }
        if let audience { query["audience"] = audience }
        if let prompt { query["prompt"] = prompt }
        if let screenHint { query["screen_hint"] = screenHint }
        for (name, value) in additionalParameters { query[name] = value }
        // 7. Fix-ups.
        if let finalScope = query["scope"] { query["scope"] = Self.includingOpenID(finalScope) }
        for (name, value) in trailingParameters { query[name] = value }

        let url = try Self.url(authorizationEndpoint, adding: query.pairs)
        let sentState = query["state"].map(Secret.init) ?? state
        let sentNonce = query["nonce"].flatMap { $0.isEmpty ? nil : Secret($0) }
        let sentMaxAge = query["max_age"].flatMap { Int($0) }
        return OIDCAuthorizationTransaction(
            url: url, clientId: clientId, redirectURI: redirectURI, codeVerifier: pkce.verifier, state: sentState,
            nonce: sentNonce, maxAge: sentMaxAge, organization: query["organization"], scope: query["scope"], dpopKey: dpopKey)
    }

    /// Prepends `openid` to a space-separated scope that lacks it (as a whole token).
    /// - Parameter scope: the scope as given.
    /// - Returns: `scope` unchanged when it holds `openid`, else `"openid " + scope` (or `openid`
    ///   for an empty scope).
    public static func includingOpenID(_ scope: String) -> String {
        let tokens = scope.split(separator: " ", omittingEmptySubsequences: true)
        if tokens.contains("openid") { return scope }
        return tokens.isEmpty ? "openid" : "openid " + scope
    }

    /// 32 random bytes as base64url (43 characters); when the source returns fewer bytes, a UUID
    /// without dashes (32 hex characters), as the Auth0 SDK falls back.
    static func randomToken(_ random: any RandomSource) -> String {
        let bytes = random.bytes(32)
        if bytes.count == 32 { return Base64URL.encode(bytes) }
        return UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// `endpoint` with `pairs` appended to its query (existing query items are kept first).
    static func url(_ endpoint: URL, adding pairs: [(String, String)]) throws -> URL {
        try url(endpoint, addingEncodedQuery: FormEncoding.encode(pairs))
    }

    /// `endpoint` with an already percent-encoded query appended (existing query items are kept first).
    static func url(_ endpoint: URL, addingEncodedQuery encoded: String) throws -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false),
              let scheme = components.scheme, !scheme.isEmpty, components.host?.isEmpty == false else {
            throw AuthError(.invalidConfiguration, message: "The endpoint \(endpoint.absoluteString) is not an absolute URL.")
        }
        var query = components.percentEncodedQuery ?? ""
        if !encoded.isEmpty { query = query.isEmpty ? encoded : query + "&" + encoded }
        components.percentEncodedQuery = query.isEmpty ? nil : query
        guard let url = components.url else {
            throw AuthError(.invalidConfiguration, message: "Cannot build a URL from \(endpoint.absoluteString).")
        }
        return url
    }
}

/// Name/value pairs in insertion order where setting an existing name replaces its value in place.
struct OrderedParameters: Sendable {
    private(set) var pairs: [(String, String)] = []

    subscript(name: String) -> String? {
        get { pairs.first { $0.0 == name }?.1 }
        set {
            if let index = pairs.firstIndex(where: { $0.0 == name }) {
                if let newValue { pairs[index].1 = newValue } else { pairs.remove(at: index) }
            } else if let newValue {
                pairs.append((name, newValue))
            }
        }
    }

    /// The query of a URL as decoded pairs (`+` read as a space).
    static func decodeQuery(of url: URL) -> [(String, String)] {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else { return [] }
        return FormEncoding.decode(query)
    }
}
