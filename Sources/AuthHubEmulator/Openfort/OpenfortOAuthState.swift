import Foundation

/// An OAuth flow started by `/sign-in/social` or `/link-social` and finished by the emulator's
/// authorize hook.
struct OpenfortOAuthState: Sendable {
    var state: String
    var provider: String
    var callbackURL: String
    var errorCallbackURL: String?
    /// The email the emulated provider reports (`loginHint`), unless the hook is given `email=`.
    var loginHint: String?
    /// The user the account is linked to (link-social, or an anonymous user's sign-in/social).
    var linkUserId: String?
    var expiresAt: Date
}
