import Foundation

/// Per-sign-in choices for a browser sign-in (``BrowserSignInProvider``), the same for every
/// provider: nil values fall back to the provider's configuration.
///
/// Which options a provider understands differs: Auth0 takes all of them (AuthHubAuth0 docs, Auth0Endpoints: “Authorize URL”:
/// `audience`, `scope`, `connection`, `connection_scope`, `organization`, `invitation`, `prompt`,
/// `screen_hint`, `max_age`, `login_hint`); a generic OpenID provider takes the standard ones
/// (`scope`, `prompt`, `max_age`, `login_hint`) and ``parameters``, and refuses the others with
/// ``AuthErrorCode/unsupported`` rather than ignoring them.
public struct BrowserSignInOptions: Sendable, Equatable {
    /// The requested scopes (space-separated); `openid` is added when missing.
    public var scope: String?
    /// The API the access token is for (Auth0).
    public var audience: String?
    /// The identity provider connection to go straight to, e.g. `google-oauth2` (Auth0).
    public var connection: String?
    /// Scopes to ask the upstream identity provider of ``connection`` for (Auth0 `connection_scope`).
    public var connectionScope: String?
    /// The organization to sign in to: an `org_…` id or a name (Auth0 Organizations).
    public var organization: String?
    /// An invitation link (`…?invitation=…&organization=…`) to accept while signing in (Auth0).
    public var invitationURL: URL?
    /// `prompt`: `login` to ask for credentials even with a browser session, `none`, `consent`, …
    public var prompt: String?
    /// `screen_hint`: `signup` to open the sign-up page (Auth0).
    public var screenHint: String?
    /// `max_age` in seconds: ask for credentials again when the last one is older; the ID token's
    /// `auth_time` is then checked.
    public var maxAge: Int?
    /// `login_hint`: the email or username to prefill.
    public var loginHint: String?
    /// Other `/authorize` parameters, in order (`ui_locales`, …). They may not replace the ones
    /// that bind the flow (``reservedParameters``).
    public var parameters: [Parameter]

    /// One extra authorization parameter.
    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Parameters the flow itself sets and a caller may not replace: they bind the redirect to this
    /// sign-in (PKCE, `state`, `nonce`) and to the registered client.
    public static let reservedParameters: Set<String> = [
        "client_id", "response_type", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method",
    ]

    /// The largest `max_age` accepted: ten years.
    public static let maximumMaxAge = 315_360_000

    /// Creates options; every value is optional.
    public init(scope: String? = nil, audience: String? = nil, connection: String? = nil, connectionScope: String? = nil,
                organization: String? = nil, invitationURL: URL? = nil, prompt: String? = nil, screenHint: String? = nil,
                maxAge: Int? = nil, loginHint: String? = nil, parameters: [Parameter] = []) {
        self.scope = scope
        self.audience = audience
        self.connection = connection
        self.connectionScope = connectionScope
        self.organization = organization
        self.invitationURL = invitationURL
        self.prompt = prompt
        self.screenHint = screenHint
        self.maxAge = maxAge
        self.loginHint = loginHint
        self.parameters = parameters
    }

    /// Checks the options before any request: `max_age` in 0…``maximumMaxAge``, no empty values,
    /// no reserved or empty parameter names, an invitation link that carries `invitation` and
    /// `organization`.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the option.
    public func validate(provider: String? = nil) throws {
        func refuse(_ message: String) -> AuthError { AuthError(.invalidRequest, message: message, provider: provider) }
        if let maxAge, !(0...Self.maximumMaxAge).contains(maxAge) {
            throw refuse("max_age must be between 0 and \(Self.maximumMaxAge) seconds.")
        }
        let named: [(String, String?)] = [
            ("scope", scope), ("audience", audience), ("connection", connection), ("connection_scope", connectionScope),
            ("organization", organization), ("prompt", prompt), ("screen_hint", screenHint), ("login_hint", loginHint),
        ]
        for (name, value) in named where value?.trimmingCharacters(in: .whitespaces).isEmpty == true {
            throw refuse("\(name) must not be empty.")
        }
        for parameter in parameters {
            guard !parameter.name.isEmpty else { throw refuse("An authorization parameter has an empty name.") }
            guard !Self.reservedParameters.contains(parameter.name) else {
                throw refuse("The authorization parameter \(parameter.name) is set by the sign-in itself and cannot be given.")
            }
        }
        if let invitationURL {
            let items = URLComponents(url: invitationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
            guard items.contains(where: { $0.name == "invitation" && $0.value?.isEmpty == false }),
                  items.contains(where: { $0.name == "organization" && $0.value?.isEmpty == false })
            else { throw refuse("Invalid invitation URL: it must carry organization and invitation.") }
        }
    }

    /// The names of the options that are set, in the order declared (for a provider that supports
    /// only some of them to say which it cannot honour).
    public var setOptionNames: [String] {
        var names: [String] = []
        if scope != nil { names.append("scope") }
        if audience != nil { names.append("audience") }
        if connection != nil { names.append("connection") }
        if connectionScope != nil { names.append("connection_scope") }
        if organization != nil { names.append("organization") }
        if invitationURL != nil { names.append("invitation") }
        if prompt != nil { names.append("prompt") }
        if screenHint != nil { names.append("screen_hint") }
        if maxAge != nil { names.append("max_age") }
        if loginHint != nil { names.append("login_hint") }
        return names
    }
}
