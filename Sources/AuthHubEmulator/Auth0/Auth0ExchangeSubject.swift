import Foundation

/// A subject token registered for the token-exchange grant: who it signs in.
struct Auth0ExchangeSubject: Sendable {
    /// The lower-cased email of the user.
    var email: String
    /// The connection the user lives in (created there on first use).
    var connection: String
}
