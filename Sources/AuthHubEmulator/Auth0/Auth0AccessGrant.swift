import Foundation

/// An access token and what it grants.
struct Auth0AccessGrant: Sendable {
    var grant: Auth0Grant
    var expiresAt: Date
}
