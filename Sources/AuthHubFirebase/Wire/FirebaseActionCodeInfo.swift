import AuthHub
import Foundation

/// What `accounts:resetPassword` says about an email action code (<doc:FirebaseEndpoints>: “Reset password”): the account's
/// email and the code's request type.
public struct FirebaseActionCodeInfo: Sendable, Hashable {
    /// The email of the account the code belongs to.
    public var email: String
    /// `requestType` (`PASSWORD_RESET`, …), when sent.
    public var requestType: String?
    /// `newEmail` (email-change codes).
    public var newEmail: String?

    /// Creates info from values.
    public init(email: String, requestType: String? = nil, newEmail: String? = nil) {
        self.email = email
        self.requestType = requestType
        self.newEmail = newEmail
    }
}
