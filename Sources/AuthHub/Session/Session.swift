import Foundation

/// Identifies one stored session: a provider id and an account within it.
public struct SessionKey: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// The provider id from providers.json.
    public var provider: String
    /// The account within the provider; `default` unless an app signs in several accounts.
    public var account: String

    public init(provider: String, account: String = SessionKey.defaultAccount) {
        self.provider = provider
        self.account = account
    }

    /// The account name used when none is given.
    public static let defaultAccount = "default"

    /// `provider/account`.
    public var description: String { "\(provider)/\(account)" }

    public static func < (lhs: SessionKey, rhs: SessionKey) -> Bool {
        (lhs.provider, lhs.account) < (rhs.provider, rhs.account)
    }
}

/// A signed-in session with one provider: tokens, expiry, user claims.
///
/// Every token is a ``Secret``; `description` shows none of them. `expiresAt` is absolute (never
/// "expires in"), so a stored session stays meaningful after a restart. `version` is maintained by
/// the ``SessionStore`` for compare-and-swap: it is 0 for a session that was never stored.
public struct Session: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The provider id from providers.json.
    public var providerID: String
    /// The account within the provider.
    public var accountKey: String
    /// The access token (or the provider's session token).
    public var accessToken: Secret<String>
    /// `Bearer`, `DPoP`, …
    public var tokenType: String
    /// The OpenID Connect ID token, if the provider issued one.
    public var idToken: Secret<String>?
    /// The refresh token, if the session can be renewed.
    public var refreshToken: Secret<String>?
    /// When the access token expires; nil when the provider did not say.
    public var expiresAt: Date?
    /// The granted scope, space-separated.
    public var scope: String?
    /// The user's id at the provider (`sub`, `localId`, `user_id`…).
    public var userID: String?
    /// Non-secret user claims (email, name, …).
    public var claims: [String: JSONValue]
    /// Non-secret provider-specific values (e.g. a Turnkey organization id).
    public var extras: [String: JSONValue]
    /// Secret provider-specific values (e.g. a Turnkey session private key).
    public var secretExtras: [String: Secret<String>]
    /// The store's version of this session, for compare-and-swap; 0 when never stored.
    public var version: UInt64
    /// When the session was created by a sign-in.
    public var issuedAt: Date?

    public init(
        providerID: String,
        accountKey: String = SessionKey.defaultAccount,
        accessToken: Secret<String>,
        tokenType: String = "Bearer",
        idToken: Secret<String>? = nil,
        refreshToken: Secret<String>? = nil,
        expiresAt: Date? = nil,
        scope: String? = nil,
        userID: String? = nil,
        claims: [String: JSONValue] = [:],
        extras: [String: JSONValue] = [:],
        secretExtras: [String: Secret<String>] = [:],
        version: UInt64 = 0,
        issuedAt: Date? = nil
    ) {
        self.providerID = providerID
        self.accountKey = accountKey
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.userID = userID
        self.claims = claims
        self.extras = extras
        self.secretExtras = secretExtras
        self.version = version
        self.issuedAt = issuedAt
    }

    /// The key this session is stored under.
    public var key: SessionKey { SessionKey(provider: providerID, account: accountKey) }

    /// True when the access token is still valid at `now + minTTL` (a session without an expiry
    /// never expires by time).
    public func isValid(at now: Date, minTTL: TimeInterval = 0) -> Bool {
        Self.isValid(expiresAt: expiresAt, at: now, minTTL: minTTL)
    }

    /// ``isValid(at:minTTL:)`` for an expiry read on its own (a cached snapshot's).
    package static func isValid(expiresAt: Date?, at now: Date, minTTL: TimeInterval) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt >= now && expiresAt >= now.addingTimeInterval(minTTL)
    }

    /// Whether renewal is possible (a refresh token is present).
    public var canRenew: Bool { refreshToken.map { !$0.isEmpty } ?? false }

    /// The scope as a set of lowercased tokens.
    public var scopeSet: Set<String> { Session.scopeSet(scope) }

    /// Splits a space-separated scope into a set of lowercased tokens.
    public static func scopeSet(_ scope: String?) -> Set<String> {
        Set((scope ?? "").split(whereSeparator: { $0 == " " }).map { $0.lowercased() })
    }

    /// A redacted one-line description: provider, account, expiry, scope — no tokens.
    public var description: String {
        let expiry = expiresAt.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
        return "Session(\(providerID)/\(accountKey), \(tokenType), expires \(expiry), scope: \(scope ?? "-"), "
            + "refreshable: \(canRenew), version: \(version))"
    }
}
