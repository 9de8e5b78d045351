import Foundation

/// A code the emulator "sent" for a My Account email or phone enrollment, read back with
/// `GET /auth0/__emulator/outbox?to=…`.
struct Auth0OutboxMessage: Sendable {
    /// The email address (lower-cased) or phone number.
    var to: String
    /// `email`, `sms` or `voice`.
    var channel: String
    var code: String
    /// Always `enrollment` for now.
    var purpose: String
    var sentAt: Date
}
