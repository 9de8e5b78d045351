import Foundation

/// A chain of refresh tokens descending from one login.
struct Auth0RefreshFamily: Sendable {
    var grant: Auth0Grant
    var revoked: Bool
}
