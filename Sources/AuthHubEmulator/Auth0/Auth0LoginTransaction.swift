import Foundation

/// A pending Universal Login page.
struct Auth0LoginTransaction: Sendable {
    var request: Auth0AuthorizeRequest
    var expiresAt: Date
}
