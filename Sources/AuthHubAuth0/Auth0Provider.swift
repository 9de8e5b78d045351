import AuthHub
import Foundation

/// An Auth0 tenant as an ``AuthProvider``.
///
/// For now a shell: it carries its parsed ``configuration`` and advertises no capabilities, so every
/// operation throws ``AuthErrorCode/unsupported`` (the protocol's defaults). The flows of
/// spec/auth0.md arrive in later issues. Reach it with `hub.provider("auth0", as: Auth0Provider.self)`.
public struct Auth0Provider: AuthProvider {
    public let id: String
    public var type: String { Auth0Plugin.typeName }
    public var capabilities: Set<AuthCapability> { [] }
    /// The entry's settings.
    public let configuration: Auth0Configuration
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext

    /// Creates the provider.
    public init(id: String, configuration: Auth0Configuration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
    }
}
