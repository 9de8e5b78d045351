import AuthHub
import Foundation

/// A Turnkey parent organization as an ``AuthProvider``.
///
/// For now a shell: it carries its parsed ``configuration`` and advertises no capabilities, so every
/// operation throws ``AuthErrorCode/unsupported`` (the protocol's defaults). The email lookup,
/// passkey login and stamping of spec/turnkey.md arrive in later issues.
public struct TurnkeyProvider: AuthProvider {
    public let id: String
    public var type: String { TurnkeyPlugin.typeName }
    public var capabilities: Set<AuthCapability> { [] }
    /// The entry's settings.
    public let configuration: TurnkeyConfiguration
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext

    /// Creates the provider.
    public init(id: String, configuration: TurnkeyConfiguration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
    }
}
