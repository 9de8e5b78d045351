import Foundation

/// A push-notification authenticator (Guardian-style, `oob_channel: auth0`) enrolled through the
/// My Account API. The emulator cannot send pushes, so it never challenges one; it lists it.
struct Auth0PushAuthenticator: Sendable {
    /// `push|dev_…`.
    var id: String
}
