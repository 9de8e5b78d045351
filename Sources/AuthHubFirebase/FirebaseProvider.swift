import AuthHub
import Foundation

/// A Firebase Authentication project as an ``AuthProvider``.
///
/// For now a shell: it carries its parsed ``configuration`` and advertises no capabilities, so every
/// operation throws ``AuthErrorCode/unsupported`` (the protocol's defaults). The flows of
/// spec/firebase.md arrive in later issues.
public struct FirebaseProvider: AuthProvider {
    public let id: String
    public var type: String { FirebasePlugin.typeName }
    public var capabilities: Set<AuthCapability> { [] }
    /// The entry's settings.
    public let configuration: FirebaseConfiguration
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext

    /// Creates the provider.
    public init(id: String, configuration: FirebaseConfiguration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
    }
}
