import AuthHub
import Foundation

/// What `accounts:resetPassword` says about an email action code (<doc:FirebaseEndpoints>: “Reset password”): the account's
/// email and the code's request type.
package struct FirebaseActionCodeInfo: Sendable, Hashable, Codable {
    /// The email of the account the code belongs to.
    package var email: String
    /// `requestType` (`PASSWORD_RESET`, …), when sent.
    package var requestType: String?
    /// `newEmail` (email-change codes).
    package var newEmail: String?

    /// Creates info from values.
    package init(email: String, requestType: String? = nil, newEmail: String? = nil) {
        self.email = email
        self.requestType = requestType
        self.newEmail = newEmail
    }

    enum CodingKeys: String, CodingKey { case email, requestType, newEmail }

    /// Reads an `accounts:resetPassword` reply: `email` is required and non-empty.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let email = c.firebaseString(.email), !email.isEmpty else {
            if c.contains(.email), (try? c.decodeNil(forKey: .email)) == false {
                throw DecodingError.dataCorruptedError(forKey: .email, in: c, debugDescription: "empty or not a string")
            }
            throw DecodingError.keyNotFound(CodingKeys.email, .init(codingPath: c.codingPath, debugDescription: "missing"))
        }
        self.init(email: email, requestType: c.looseString(.requestType), newEmail: c.looseString(.newEmail))
    }
}
