import AuthHub
import Foundation

/// An Openfort project as an ``AuthProvider``.
///
/// For now a shell: it carries its parsed ``configuration`` and advertises no capabilities, so every
/// operation throws ``AuthErrorCode/unsupported`` (the protocol's defaults). The flows of
/// spec/openfort.md arrive in later issues.
public struct OpenfortProvider: AuthProvider {
    public let id: String
    public var type: String { OpenfortPlugin.typeName }
    public var capabilities: Set<AuthCapability> { [] }
    /// The entry's settings.
    public let configuration: OpenfortConfiguration
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext

    /// Creates the provider.
    public init(id: String, configuration: OpenfortConfiguration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
    }
}
