import AuthHub
import Foundation

/// A generic OpenID Connect provider as an ``AuthProvider``.
///
/// For now a shell: it carries its parsed ``configuration`` and advertises no capabilities, so every
/// operation throws ``AuthErrorCode/unsupported`` (the protocol's defaults). Discovery, the code
/// flow and ID-token validation arrive in later issues.
public struct OIDCProvider: AuthProvider {
    public let id: String
    public var type: String { OIDCPlugin.typeName }
    public var capabilities: Set<AuthCapability> { [] }
    /// The entry's settings.
    public let configuration: OIDCConfiguration
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext

    /// Creates the provider.
    public init(id: String, configuration: OIDCConfiguration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
    }
}
