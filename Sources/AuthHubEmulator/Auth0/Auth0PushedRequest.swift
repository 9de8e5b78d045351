import Foundation

/// An authorization request pushed to `POST /oauth/par` (RFC 9126), kept until `/authorize`
/// uses its `request_uri` once or it expires.
struct Auth0PushedRequest: Sendable {
    /// The authenticated client that pushed it; `/authorize` must name the same `client_id`.
    var clientId: String
    /// The authorization parameters (without the client's credentials), validated as `/authorize`
    /// validates its query.
    var parameters: Auth0Parameters
    /// When the `request_uri` stops being accepted.
    var expiresAt: Date
}
