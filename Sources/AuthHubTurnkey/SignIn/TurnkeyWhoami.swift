import AuthHub
import Foundation

/// The reply of `whoami` (<doc:TurnkeyProtocol>: “whoami”).
public struct TurnkeyWhoami: Sendable, Hashable, Codable {
    /// The organization (the user's sub-organization).
    public var organizationId: String
    /// Its name.
    public var organizationName: String?
    /// The user.
    public var userId: String
    /// The user's name.
    public var username: String?

    /// Creates a value.
    public init(organizationId: String, organizationName: String? = nil, userId: String, username: String? = nil) {
        self.organizationId = organizationId
        self.organizationName = organizationName
        self.userId = userId
        self.username = username
    }
}
