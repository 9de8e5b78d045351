import Foundation

/// A token "sent by email" in a link: an email-verification token (`/verify-email?token=`) or a
/// password-reset token (`/reset-password/{token}`, `POST /reset-password`).
struct OpenfortLinkToken: Sendable {
    /// `changeEmail`: a verified user's new address, confirmed by the link sent to it (`email` is
    /// the new address).
    enum Kind: String, Sendable { case verification, reset, changeEmail }

    var token: String
    var kind: Kind
    var userId: String
    var email: String
    var expiresAt: Date
}
