import AuthHub
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

    /// Creates a configuration from values.
    public init(baseURL: URL, organizationId: String, rpId: String, proxyURL: URL,
                sessionLifetimeSeconds: Int = TurnkeyPlugin.defaultSessionLifetimeSeconds) {
        self.baseURL = baseURL
        self.organizationId = organizationId
        self.rpId = rpId
        self.proxyURL = proxyURL
        self.sessionLifetimeSeconds = sessionLifetimeSeconds
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
                  sessionLifetimeSeconds: configuration.int("sessionLifetimeSeconds") ?? TurnkeyPlugin.defaultSessionLifetimeSeconds)
    }
}
