import AuthHub
import Crypto
import Foundation

/// The settings of a `turnkey` entry of providers.json, parsed (see ``TurnkeyPlugin`` for the fields).
public struct TurnkeyConfiguration: Sendable, Hashable {
    /// The API base URL (production: `https://api.turnkey.com`).
    public var baseURL: URL
    /// The parent organization.
    public var organizationId: String
    /// The WebAuthn relying party ID.
    public var rpId: String
    /// The app backend's proxy (sub-organization lookup).
    public var proxyURL: URL
    /// Lifetime of the session key created at login, in seconds.
    public var sessionLifetimeSeconds: Int
    /// Wait between two `get_activity` polls of an activity that is not yet terminal, in milliseconds.
    public var activityPollIntervalMilliseconds: Int
    /// How many `get_activity` polls are made before giving up on a pending activity.
    public var activityPollAttempts: Int
    /// The notarizer key (hex, compressed or uncompressed) that session JWTs must be signed with;
    /// nil to use ``effectiveNotarizerPublicKeyHex``'s default.
    public var notarizerPublicKey: String?

    /// Creates a configuration from values.
    public init(baseURL: URL, organizationId: String, rpId: String, proxyURL: URL,
                sessionLifetimeSeconds: Int = TurnkeyPlugin.defaultSessionLifetimeSeconds,
                activityPollIntervalMilliseconds: Int = TurnkeyPlugin.defaultActivityPollIntervalMilliseconds,
                activityPollAttempts: Int = TurnkeyPlugin.defaultActivityPollAttempts,
                notarizerPublicKey: String? = nil) {
        self.baseURL = baseURL
        self.organizationId = organizationId
        self.rpId = rpId
        self.proxyURL = proxyURL
        self.sessionLifetimeSeconds = sessionLifetimeSeconds
        self.activityPollIntervalMilliseconds = activityPollIntervalMilliseconds
        self.activityPollAttempts = activityPollAttempts
        self.notarizerPublicKey = notarizerPublicKey
    }

    /// The notarizer key session JWT signatures are checked with: ``notarizerPublicKey`` when set;
    /// otherwise Turnkey's production notarizer key when ``baseURL``'s host is `api.turnkey.com`;
    /// otherwise nil, and session JWT signatures are NOT checked (an emulator or a private
    /// deployment signs with its own key — configure it to have signatures checked). The claims
    /// (public key, organization, user, expiry) are checked in every case.
    public var effectiveNotarizerPublicKeyHex: String? {
        if let notarizerPublicKey, !notarizerPublicKey.isEmpty { return notarizerPublicKey }
        if baseURL.host?.lowercased() == "api.turnkey.com" { return TurnkeySessionJWT.productionNotarizerPublicKeyHex }
        return nil
    }

    /// Parses a validated providers.json entry.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` naming the missing or invalid field.
    public init(_ configuration: ProviderConfiguration) throws {
        let base: URL
        if let configured = try configuration.httpURL("baseURL") {
            base = configured
        } else if let production = URL(string: TurnkeyPlugin.defaultBaseURL) {
            base = production
        } else {
            throw configuration.invalid("baseURL", "required")
        }
        self.init(baseURL: base,
                  organizationId: try configuration.requiredString("organizationId"),
                  rpId: try configuration.requiredString("rpId"),
                  proxyURL: try configuration.requiredHTTPURL("proxyURL"),
                  sessionLifetimeSeconds: configuration.int("sessionLifetimeSeconds") ?? TurnkeyPlugin.defaultSessionLifetimeSeconds,
                  activityPollIntervalMilliseconds: configuration.int("activityPollIntervalMilliseconds")
                      ?? TurnkeyPlugin.defaultActivityPollIntervalMilliseconds,
                  activityPollAttempts: configuration.int("activityPollAttempts") ?? TurnkeyPlugin.defaultActivityPollAttempts,
                  notarizerPublicKey: configuration.string("notarizerPublicKey"))
    }
}
