import AuthHub
import Foundation

/// The result of `create_read_write_session` (<doc:TurnkeyProtocol>: “create_read_write_session”) after its credential bundle
/// has been decrypted: a new API key registered on the user, ready to stamp.
public struct TurnkeyReadWriteSession: Sendable {
    /// The user's organization.
    public var organizationId: String
    /// Its name.
    public var organizationName: String?
    /// The user.
    public var userId: String
    /// The user's name.
    public var username: String?
    /// The id of the new API key.
    public var apiKeyId: String
    /// Stamps with the new API key.
    public var stamper: TurnkeyAPIKeyStamper

    /// Creates a value.
    public init(organizationId: String, organizationName: String?, userId: String, username: String?, apiKeyId: String,
                stamper: TurnkeyAPIKeyStamper) {
        self.organizationId = organizationId
        self.organizationName = organizationName
        self.userId = userId
        self.username = username
        self.apiKeyId = apiKeyId
        self.stamper = stamper
    }
}
